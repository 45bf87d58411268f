package io.sluice.spi.data;

import static java.util.Objects.requireNonNull;

/**
 * A column as a connector describes it. {@code typeName} is in the connector's own dialect (PostgreSQL's
 * {@code format_type}, e.g. {@code character varying(10)}, or DuckDB's {@code DECIMAL(18,2)}); {@code copyTypeOid} is
 * the type of its values in the binary COPY stream both sides speak (the data contract: a PostgreSQL type OID, as the
 * format defines it), when the connector knows it, else 0.
 *
 * @param expression what the source evaluates for this column, in its own SQL (a spec's {@code columns:} rule: an
 *                   {@code expression}, a {@code mask}, or the column it {@code rename}s); empty: the column named
 *                   {@code name}
 * @param earlierRows what the table's rows written before the column was added hold in it: NULL (or not known), one
 *                   value, or values of their own ({@link EarlierRows})
 */
public record Column(String name, String typeName, int copyTypeOid, boolean nullable, Generation generation,
                     java.util.Optional<String> expression, EarlierRows earlierRows) {
    /** Whether and how a column fills itself, as the server reports it. */
    public enum Generation {
        NONE,
        /** GENERATED ALWAYS AS (expr) STORED: computed when a row is written; cannot be written. */
        STORED,
        /** GENERATED ... AS IDENTITY: written with the source values (OVERRIDING is implicit for COPY). */
        IDENTITY,
        /** GENERATED ALWAYS AS (expr) VIRTUAL (PostgreSQL 18): computed when read; cannot be written. */
        VIRTUAL;

        /** Computed from other columns by an expression, so a copy cannot write it. Identity is not. */
        public boolean isComputed() {
            return this == STORED || this == VIRTUAL;
        }
    }

    public Column {
        requireNonNull(name, "name is null");
        requireNonNull(typeName, "typeName is null");
        requireNonNull(generation, "generation is null");
        requireNonNull(expression, "expression is null");
        requireNonNull(earlierRows, "earlierRows is null");
    }

    public Column(String name, String typeName, int copyTypeOid, boolean nullable, Generation generation,
                  java.util.Optional<String> expression) {
        this(name, typeName, copyTypeOid, nullable, generation, expression, EarlierRows.NULL);
    }

    /** The column of that name, read as it is. */
    public Column(String name, String typeName, int copyTypeOid, boolean nullable, Generation generation) {
        this(name, typeName, copyTypeOid, nullable, generation, java.util.Optional.empty());
    }

    /** This column, whose rows from before it was added hold {@code earlier}. */
    public Column withEarlierRows(EarlierRows earlier) {
        return new Column(name, typeName, copyTypeOid, nullable, generation, expression, earlier);
    }

    public static Column of(String name, String typeName) {
        return new Column(name, typeName, 0, true, Generation.NONE);
    }

    /** This column under another name and computed by the source as {@code sql} (a plain value: not generated). */
    public Column readAs(String newName, String sql) {
        return new Column(newName, typeName, copyTypeOid, nullable, Generation.NONE, java.util.Optional.of(sql));
    }

    /**
     * The source column this one reads under another name (a {@code rename} rule, whose expression is that column's
     * name in SQL's double quotes, as {@link #readAs} is given it); empty for a column read as itself or computed.
     * Lets a source that computes no expressions still honour renames.
     */
    public java.util.Optional<String> renamedFrom() {
        return expression.filter(e -> e.matches("\"(?:[^\"]|\"\")*\""))
                .map(e -> e.substring(1, e.length() - 1).replace("\"\"", "\""));
    }

    /** Whether the column is computed by an expression (STORED or VIRTUAL). */
    public boolean isGenerated() {
        return generation.isComputed();
    }
}
