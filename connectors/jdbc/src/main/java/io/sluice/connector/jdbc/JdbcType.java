package io.sluice.connector.jdbc;

import java.sql.Types;
import java.util.Locale;

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
        return PgOids.of(postgresType());
    }

    /** PostgreSQL's oids of the types this source writes, by name. */
    static final class PgOids {
        static final int BOOL = 16;
        static final int BYTEA = 17;
        static final int INT8 = 20;
        static final int INT2 = 21;
        static final int INT4 = 23;
        static final int TEXT = 25;
        static final int FLOAT4 = 700;
        static final int FLOAT8 = 701;
        static final int BPCHAR = 1042;
        static final int VARCHAR = 1043;
        static final int DATE = 1082;
        static final int TIME = 1083;
        static final int TIMESTAMP = 1114;
        static final int TIMESTAMPTZ = 1184;
        static final int NUMERIC = 1700;

        private PgOids() {
        }

        static int of(String typeName) {
            String name = typeName.toLowerCase(Locale.ROOT);
            int paren = name.indexOf('(');
            String base = (paren < 0 ? name : name.substring(0, paren) + name.substring(name.indexOf(')') + 1)).trim();
            return switch (base) {
                case "boolean", "bool" -> BOOL;
                case "bytea" -> BYTEA;
                case "bigint", "int8" -> INT8;
                case "smallint", "int2" -> INT2;
                case "integer", "int", "int4" -> INT4;
                case "text" -> TEXT;
                case "real", "float4" -> FLOAT4;
                case "double precision", "float8" -> FLOAT8;
                case "character", "char", "bpchar" -> BPCHAR;
                case "character varying", "varchar" -> VARCHAR;
                case "date" -> DATE;
                case "time", "time without time zone" -> TIME;
                case "timestamp", "timestamp without time zone" -> TIMESTAMP;
                case "timestamptz", "timestamp with time zone" -> TIMESTAMPTZ;
                case "numeric", "decimal" -> NUMERIC;
                default -> 0;
            };
        }
    }
}
