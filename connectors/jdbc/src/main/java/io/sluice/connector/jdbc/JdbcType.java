package io.sluice.connector.jdbc;

import io.sluice.toolkit.copy.PgTypes;

import java.sql.Types;

/**
 * A column's type as the driver's metadata gives it ({@link java.sql.Types}, precision, scale), the kind of value
 * Sluice reads for it and the PostgreSQL type a created table gets. A type the metadata does not place is read as
 * text (the driver's rendering of the value), and {@code sluice plan} shows which.
 */
record JdbcType(int sqlType, String typeName, int precision, int scale) {
    enum Kind { BOOLEAN, INT2, INT4, INT8, FLOAT4, FLOAT8, NUMERIC, TEXT, BYTES, DATE, TIME, TIMESTAMP, TIMESTAMPTZ }

    Kind kind() {
        return switch (sqlType) {
            case Types.BOOLEAN -> Kind.BOOLEAN;
            case Types.BIT -> precision <= 1 ? Kind.BOOLEAN : Kind.TEXT;
            case Types.TINYINT, Types.SMALLINT -> Kind.INT2;
            case Types.INTEGER -> Kind.INT4;
            case Types.BIGINT -> Kind.INT8;
            case Types.REAL -> Kind.FLOAT4;
            case Types.FLOAT, Types.DOUBLE -> Kind.FLOAT8;
            case Types.NUMERIC, Types.DECIMAL -> Kind.NUMERIC;
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> Kind.BYTES;
            case Types.DATE -> Kind.DATE;
            case Types.TIME -> Kind.TIME;
            case Types.TIMESTAMP -> Kind.TIMESTAMP;
            case Types.TIMESTAMP_WITH_TIMEZONE -> Kind.TIMESTAMPTZ;
            default -> Kind.TEXT;
        };
    }

    String postgresType() {
        return switch (kind()) {
            case BOOLEAN -> "boolean";
            case INT2 -> "smallint";
            case INT4 -> "integer";
            case INT8 -> "bigint";
            case FLOAT4 -> "real";
            case FLOAT8 -> "double precision";
            case NUMERIC -> precision > 0 && precision <= 1000 && scale >= 0 && scale <= precision
                    ? "numeric(" + precision + "," + scale + ")" : "numeric";
            case TEXT -> switch (sqlType) {
                case Types.CHAR, Types.NCHAR -> precision > 0 && precision <= 10_485_760
                        ? "character(" + precision + ")" : "text";
                case Types.VARCHAR, Types.NVARCHAR -> precision > 0 && precision <= 10_485_760
                        ? "character varying(" + precision + ")" : "text";
                default -> "text";
            };
            case BYTES -> "bytea";
            case DATE -> "date";
            case TIME -> "time without time zone";
            case TIMESTAMP -> "timestamp without time zone";
            case TIMESTAMPTZ -> "timestamp with time zone";
        };
    }

    /** The oid of the created type's base. */
    int postgresOid() {
        return PgTypes.oid(postgresType());
    }
}
