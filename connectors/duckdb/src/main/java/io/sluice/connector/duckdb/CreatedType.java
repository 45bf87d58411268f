package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;

import java.util.Optional;

/**
 * The PostgreSQL type a target column created from a DuckDB column gets ({@code create: if-missing}): the type this
 * connector's encoders write for the DuckDB type without losing anything, so the created table and the load agree.
 * Lists become arrays, structs and maps jsonb, decimals keep precision and scale, TIMESTAMP WITH TIME ZONE becomes
 * timestamptz (both are instants) and TIMESTAMP timestamp; types PostgreSQL lacks (unsigned and 128-bit integers)
 * take the next wider one.
 */
final class CreatedType {
    private CreatedType() {
    }

    static Column of(Column duckDb) throws ConnectorException {
        DuckDbType type = DuckDbType.parse(duckDb.typeName());
        Optional<String> postgres = postgresType(type);
        if (postgres.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI008, "column " + duckDb.name() + " is "
                    + type.sql() + ", which has no PostgreSQL type to create a column of", "create the target table "
                    + "yourself, or cast the column in the query (e.g. CAST(col AS VARCHAR))");
        }
        Column created = column(duckDb, postgres.get());
        // Create and load must agree: a type the load would refuse is not created (a list of a type that has no
        // array encoder is created as jsonb, which reads it through JSON), and what neither holds is refused now.
        try {
            Conversions.plan(duckDb, created);
            return created;
        } catch (ConnectorException refused) {
            if (type.kind() == DuckDbType.Kind.LIST || type.kind() == DuckDbType.Kind.ARRAY) {
                Column json = column(duckDb, "jsonb");
                try {
                    Conversions.plan(duckDb, json);
                    return json;
                } catch (ConnectorException alsoRefused) {
                    // refused below, with the first reason
                }
            }
            throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI008, "column " + duckDb.name() + " is "
                    + type.sql() + ", and the load could not write the " + postgres.get() + " column it would be "
                    + "created as: " + refused.getMessage(), "create the target table yourself, or cast the column "
                    + "in the query (e.g. CAST(col AS VARCHAR))");
        }
    }

    private static Column column(Column duckDb, String postgres) {
        PgType pg = PgType.parse(postgres, 0);
        return new Column(duckDb.name(), postgres, pg.oid(), duckDb.nullable(), Column.Generation.NONE);
    }

    static Optional<String> postgresType(DuckDbType type) {
        return Optional.ofNullable(switch (type.kind()) {
            case BOOLEAN -> "boolean";
            case TINYINT, UTINYINT, SMALLINT -> "smallint";
            case USMALLINT, INTEGER -> "integer";
            case UINTEGER, BIGINT -> "bigint";
            case UBIGINT, HUGEINT, UHUGEINT -> "numeric(39,0)";
            case FLOAT -> "real";
            case DOUBLE -> "double precision";
            case DECIMAL -> "numeric(" + type.precision() + "," + type.scale() + ")";
            case VARCHAR, ENUM, TIME_TZ -> "text";
            case BLOB -> "bytea";
            case DATE -> "date";
            case TIME, TIME_NS -> "time without time zone";
            case TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS -> "timestamp without time zone";
            case TIMESTAMP_TZ -> "timestamp with time zone";
            case INTERVAL -> "interval";
            case UUID -> "uuid";
            case JSON, STRUCT, MAP -> "jsonb";
            case LIST, ARRAY -> type.element().flatMap(CreatedType::postgresType)
                    .filter(e -> !e.endsWith("[]") && !e.equals("jsonb")).map(e -> e + "[]").orElse("jsonb");
            case OTHER -> null;
        });
    }
}
