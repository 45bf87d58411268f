package io.sluice.spi;

import static java.util.Objects.requireNonNull;

/**
 * A column as a connector describes it. {@code typeName} is in the connector's own dialect (PostgreSQL's
 * {@code format_type}, e.g. {@code character varying(10)}, or DuckDB's {@code DECIMAL(18,2)}); {@code pgTypeOid} is
 * the PostgreSQL type OID when the column lives in PostgreSQL, else 0.
 */
public record Column(String name, String typeName, int pgTypeOid, boolean nullable, Generation generation) {
    /** Whether and how a target column fills itself. */
    public enum Generation {
        NONE,
        /** GENERATED ALWAYS AS (expr) STORED: cannot be written, left out of the copy. */
        STORED,
        /** GENERATED ... AS IDENTITY: written with the source values (OVERRIDING is implicit for COPY). */
        IDENTITY
    }

    public Column {
        requireNonNull(name, "name is null");
        requireNonNull(typeName, "typeName is null");
        requireNonNull(generation, "generation is null");
    }

    public static Column of(String name, String typeName) {
        return new Column(name, typeName, 0, true, Generation.NONE);
    }
}
