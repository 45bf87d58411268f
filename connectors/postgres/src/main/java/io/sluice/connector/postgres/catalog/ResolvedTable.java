package io.sluice.connector.postgres.catalog;

import static java.util.Objects.requireNonNull;

/** A table found in the catalog: its OID, real schema and name, and relkind ('r', 'p', 'v', 'm', 'f'). */
public record ResolvedTable(long oid, String schema, String name, char relkind) {
    public ResolvedTable {
        requireNonNull(schema, "schema is null");
        requireNonNull(name, "name is null");
    }

    public String quoted() {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(name);
    }

    public String kindName() {
        return switch (relkind) {
            case 'r' -> "table";
            case 'p' -> "partitioned table";
            case 'v' -> "view";
            case 'm' -> "materialized view";
            case 'f' -> "foreign table";
            default -> "relation of kind '" + relkind + "'";
        };
    }
}
