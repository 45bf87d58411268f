package io.sluice.spi.changes;

import io.sluice.spi.data.Column;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A table whose row changes a {@link ChangeFeed} reads, as the source describes it when its first change arrives.
 *
 * @param name    the table as the source names it, quoted as {@link io.sluice.spi.read.Source#describe()} gives a table source
 *                (e.g. {@code public.orders}), so a change finds the stream that copied its table
 * @param columns its columns as the changes carry them, in order
 * @param key     for each column, whether it is part of the row's identity (its primary key or replica identity)
 * @param types   for each column, its type as the source writes it in DDL (e.g. {@code numeric(12,2)}), so a
 *                column added at the source can be added to the target
 * @param format  how the values of its changes are written
 * @param described its columns, by name, as the source's catalog describes them when the description arrives (what
 *                the rows from before a column was added hold: {@link Column#earlierRows()}), so a column added while
 *                a run follows is added to the target as one added before the run is; empty when the source cannot
 *                tell
 */
public record ChangeRelation(String name, List<String> columns, List<Boolean> key, List<String> types,
                             ValueFormat format, java.util.Map<String, Column> described) {
    /** How a change's values are written. */
    public enum ValueFormat {
        /** UTF-8 text in the form the type's input reads (PostgreSQL's {@code COPY ... (FORMAT text)} values). */
        TEXT,
        /**
         * PostgreSQL's binary form of the type named in {@link #types()} (its send function's output, a
         * {@code COPY ... (FORMAT binary)} field): only a PostgreSQL target reads it, into the same type.
         */
        POSTGRESQL_BINARY
    }

    public ChangeRelation(String name, List<String> columns, List<Boolean> key, List<String> types,
                          ValueFormat format) {
        this(name, columns, key, types, format, java.util.Map.of());
    }

    public ChangeRelation {
        requireNonNull(name, "name is null");
        requireNonNull(format, "format is null");
        described = java.util.Map.copyOf(requireNonNull(described, "described is null"));
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        key = List.copyOf(requireNonNull(key, "key is null"));
        types = List.copyOf(requireNonNull(types, "types is null"));
        if (columns.size() != key.size() || columns.size() != types.size()) {
            throw new IllegalArgumentException("columns, key and types differ in length: " + columns.size() + ", "
                    + key.size() + " and " + types.size());
        }
    }
}
