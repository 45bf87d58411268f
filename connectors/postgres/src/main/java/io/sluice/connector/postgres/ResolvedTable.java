package io.sluice.connector.postgres;

import static java.util.Objects.requireNonNull;

/** A table found in the catalog: its OID, real schema and name, and relkind ('r', 'p', 'v', 'm', 'f'). */
record ResolvedTable(long oid, String schema, String name, char relkind) {
    ResolvedTable {
        requireNonNull(schema, "schema is null");
        requireNonNull(name, "name is null");
    }

    String quoted() {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(name);
    }

    String kindName() {
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
