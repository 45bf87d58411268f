package io.sluice.spi;

import static java.util.Objects.requireNonNull;

/**
 * A column as a connector describes it. {@code typeName} is in the connector's own dialect (PostgreSQL's
 * {@code format_type}, e.g. {@code character varying(10)}, or DuckDB's {@code DECIMAL(18,2)}); {@code pgTypeOid} is
 * the PostgreSQL type OID when the column lives in PostgreSQL, else 0.
 */
public record Column(String name, String typeName, int pgTypeOid, boolean nullable, Generation generation) {
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
    }

    public static Column of(String name, String typeName) {
        return new Column(name, typeName, 0, true, Generation.NONE);
    }

    /** Whether the column is computed by an expression (STORED or VIRTUAL). */
    public boolean isGenerated() {
        return generation.isComputed();
    }
}
