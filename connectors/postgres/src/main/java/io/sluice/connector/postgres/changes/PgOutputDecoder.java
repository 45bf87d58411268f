package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.spi.changes.ChangeRelation;
import io.sluice.spi.changes.RowChange;
import io.sluice.spi.data.Column;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads pgoutput's messages (protocol version 1, PostgreSQL's "Logical Replication Message Formats"): relations as
 * they are described, row changes (values in text form, or binary when the stream was started with {@code binary}),
 * transaction boundaries. One decoder per stream, used by one thread.
 */
final class PgOutputDecoder {
    /** A message this decoder turned into something the feed acts on. */
    sealed interface Message permits Begin, Commit, Change, Other {
    }

    record Begin(long finalLsn) implements Message {
    }

    /** {@code endLsn}: where the transaction's commit record ends, the position a feed confirms. */
    record Commit(long commitLsn, long endLsn) implements Message {
    }

    /** One or, for a TRUNCATE of several tables, more changes. */
    record Change(List<RowChange> changes) implements Message {
    }

    record Other(char type) implements Message {
    }

    /**
     * A type by oid and modifier: its DDL name, e.g. {@code numeric(12,2)} (the source's format_type), and whether
     * its binary form reads the same on another database.
     */
    @FunctionalInterface
    interface TypeNames {
        Type of(int oid, int modifier);
    }

    record Type(String name, boolean binarySafe) {
    }

    /**
     * A table described anew with a column whose type's binary form another database cannot read (a column added, or
     * retyped, since the stream started with binary values): a new stream chooses text.
     */
    static final class NotBinarySafe extends RuntimeException {
        NotBinarySafe(String message) {
            super(message);
        }
    }

    private final Map<Integer, ChangeRelation> relations = new HashMap<>();
    private final TypeNames typeNames;
    private final ChangeRelation.ValueFormat format;

    PgOutputDecoder(TypeNames typeNames, ChangeRelation.ValueFormat format) {
        this(typeNames, format, oid -> java.util.Map.of());
    }

    PgOutputDecoder(TypeNames typeNames, ChangeRelation.ValueFormat format, Descriptions descriptions) {
        this.typeNames = java.util.Objects.requireNonNull(typeNames, "typeNames is null");
        this.format = java.util.Objects.requireNonNull(format, "format is null");
        this.descriptions = java.util.Objects.requireNonNull(descriptions, "descriptions is null");
    }

    /** A table's columns as the source's catalog describes them now, by name (asked once per new description). */
    @FunctionalInterface
    interface Descriptions {
        java.util.Map<String, Column> of(int relationOid);
    }

    private final Descriptions descriptions;

    Message decode(ByteBuffer buffer) {
        char type = (char) buffer.get();
        return switch (type) {
            case 'B' -> new Begin(buffer.getLong());
            case 'C' -> {
                buffer.get(); // flags, unused
                long commit = buffer.getLong();
                yield new Commit(commit, buffer.getLong());
            }
            case 'R' -> {
                relation(buffer);
                yield new Other(type);
            }
            case 'I' -> {
                ChangeRelation relation = relationOf(buffer.getInt());
                expect(buffer, 'N');
                Tuple tuple = tuple(buffer, relation);
                yield one(new RowChange(RowChange.Kind.INSERT, relation, List.of(), tuple.values, null));
            }
            case 'U' -> {
                ChangeRelation relation = relationOf(buffer.getInt());
                char next = (char) buffer.get();
                List<byte[]> oldKey = List.of();
                if (next == 'K' || next == 'O') {
                    oldKey = tuple(buffer, relation).values;
                    next = (char) buffer.get();
                }
                if (next != 'N') {
                    throw new IllegalStateException("an UPDATE of " + relation.name() + " without its new row ('"
                            + next + "')");
                }
                Tuple tuple = tuple(buffer, relation);
                yield one(new RowChange(RowChange.Kind.UPDATE, relation, oldKey, tuple.values, tuple.unchanged));
            }
            case 'D' -> {
                ChangeRelation relation = relationOf(buffer.getInt());
                char next = (char) buffer.get();
                if (next != 'K' && next != 'O') {
                    throw new IllegalStateException("a DELETE of " + relation.name() + " without its key ('" + next
                            + "')");
                }
                yield one(new RowChange(RowChange.Kind.DELETE, relation, tuple(buffer, relation).values, List.of(),
                        null));
            }
            case 'T' -> {
                int count = buffer.getInt();
                buffer.get(); // options: CASCADE, RESTART IDENTITY; the target truncates what the run routes
                List<RowChange> truncated = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    truncated.add(new RowChange(RowChange.Kind.TRUNCATE, relationOf(buffer.getInt()), List.of(),
                            List.of(), null));
                }
                yield new Change(truncated);
            }
            default -> new Other(type); // Origin, Type, Message: nothing to apply
        };
    }

    Optional<ChangeRelation> relation(int oid) {
        return Optional.ofNullable(relations.get(oid));
    }

    private static Change one(RowChange change) {
        return new Change(List.of(change));
    }

    private ChangeRelation relationOf(int oid) {
        ChangeRelation relation = relations.get(oid);
        if (relation == null) {
            throw new IllegalStateException("a change of relation " + Integer.toUnsignedString(oid)
                    + " before its description");
        }
        return relation;
    }

    private void relation(ByteBuffer buffer) {
        int oid = buffer.getInt();
        String namespace = string(buffer);
        String name = string(buffer);
        buffer.get(); // replica identity setting
        int columns = Short.toUnsignedInt(buffer.getShort());
        List<String> names = new ArrayList<>(columns);
        List<Boolean> key = new ArrayList<>(columns);
        List<String> types = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            key.add((buffer.get() & 1) != 0);
            names.add(string(buffer));
            int typeOid = buffer.getInt();
            Type type = typeNames.of(typeOid, buffer.getInt());
            if (format == ChangeRelation.ValueFormat.POSTGRESQL_BINARY && !type.binarySafe()) {
                throw new NotBinarySafe(namespace + "." + name + "." + names.getLast() + " is of type " + type.name()
                        + ", whose binary form the target cannot read (a user type, or one that names source oids), "
                        + "and this stream was started with binary values");
            }
            types.add(type.name());
        }
        String schema = namespace.isEmpty() ? "pg_catalog" : namespace;
        // The catalog is asked when a table's columns are new to this stream (its first description, or one after
        // a column was added or dropped): a description repeated for other reasons costs nothing.
        ChangeRelation prior = relations.get(oid);
        java.util.Map<String, Column> described = prior != null && prior.columns().equals(names)
                ? prior.described() : descriptions.of(oid);
        relations.put(oid, new ChangeRelation(SqlQuote.identifier(schema) + "." + SqlQuote.identifier(name), names,
                key, types, format, described));
    }

    private record Tuple(List<byte[]> values, boolean[] unchanged) {
    }

    private static Tuple tuple(ByteBuffer buffer, ChangeRelation relation) {
        int columns = Short.toUnsignedInt(buffer.getShort());
        if (columns != relation.columns().size()) {
            throw new IllegalStateException("a row of " + relation.name() + " with " + columns + " values, and its "
                    + "description has " + relation.columns().size() + " columns");
        }
        byte[][] values = new byte[columns][];
        boolean[] unchanged = null;
        for (int i = 0; i < columns; i++) {
            char kind = (char) buffer.get();
            switch (kind) {
                case 'n' -> values[i] = null;
                case 'u' -> {
                    if (unchanged == null) {
                        unchanged = new boolean[columns];
                    }
                    unchanged[i] = true;
                }
                case 't', 'b' -> {
                    if ((kind == 'b') != (relation.format() == ChangeRelation.ValueFormat.POSTGRESQL_BINARY)) {
                        throw new IllegalStateException("a value of " + relation.name() + "."
                                + relation.columns().get(i) + " in format '" + kind + "', and the stream was started "
                                + "for " + relation.format());
                    }
                    int length = buffer.getInt();
                    byte[] value = new byte[length];
                    buffer.get(value);
                    values[i] = value;
                }
                default -> throw new IllegalStateException("a value of " + relation.name() + "."
                        + relation.columns().get(i) + " in format '" + kind + "', which pgoutput v1 never sends");
            }
        }
        return new Tuple(Arrays.asList(values), unchanged);
    }

    private static void expect(ByteBuffer buffer, char wanted) {
        char got = (char) buffer.get();
        if (got != wanted) {
            throw new IllegalStateException("expected '" + wanted + "' in a change message, got '" + got + "'");
        }
    }

    private static String string(ByteBuffer buffer) {
        int start = buffer.position();
        int end = start;
        while (buffer.get(end) != 0) {
            end++;
        }
        String text = new String(buffer.array(), buffer.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
        buffer.position(end + 1);
        return text;
    }
}
