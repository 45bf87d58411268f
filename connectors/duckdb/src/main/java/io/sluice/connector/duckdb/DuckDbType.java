package io.sluice.connector.duckdb;

import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A DuckDB column type as {@code DESCRIBE} prints it ({@code DECIMAL(15,2)}, {@code INTEGER[]},
 * {@code STRUCT(a INTEGER)}, {@code TIMESTAMP WITH TIME ZONE}). Only what conversions need is parsed: the kind,
 * decimal precision/scale and the element of a list.
 */
record DuckDbType(Kind kind, String sql, int precision, int scale, Optional<DuckDbType> element) {
    enum Kind {
        BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, HUGEINT, UTINYINT, USMALLINT, UINTEGER, UBIGINT, UHUGEINT,
        FLOAT, DOUBLE, DECIMAL, VARCHAR, BLOB, DATE, TIME, TIME_NS, TIME_TZ,
        TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS, TIMESTAMP_TZ, INTERVAL, UUID, JSON, ENUM,
        LIST, ARRAY, STRUCT, MAP, OTHER
    }

    DuckDbType {
        requireNonNull(kind, "kind is null");
        requireNonNull(sql, "sql is null");
        requireNonNull(element, "element is null");
    }

    static DuckDbType parse(String typeSql) {
        String sql = requireNonNull(typeSql, "typeSql is null").strip();
        if (sql.endsWith("]")) {
            int open = matchingOpenBracket(sql);
            if (open > 0) {
                Kind kind = open == sql.length() - 2 ? Kind.LIST : Kind.ARRAY;
                return new DuckDbType(kind, sql, 0, 0, Optional.of(parse(sql.substring(0, open))));
            }
        }
        int paren = sql.indexOf('(');
        String base = (paren < 0 ? sql : sql.substring(0, paren)).strip().toUpperCase(Locale.ROOT);
        if (base.equals("DECIMAL") || base.equals("NUMERIC")) {
            int precision = 18;
            int scale = 3;
            if (paren > 0) {
                String[] parts = sql.substring(paren + 1, sql.lastIndexOf(')')).split(",");
                precision = Integer.parseInt(parts[0].strip());
                scale = parts.length > 1 ? Integer.parseInt(parts[1].strip()) : 0;
            }
            return new DuckDbType(Kind.DECIMAL, sql, precision, scale, Optional.empty());
        }
        return new DuckDbType(kindOf(base), sql, 0, 0, Optional.empty());
    }

    private static Kind kindOf(String base) {
        return switch (base) {
            case "BOOLEAN", "BOOL" -> Kind.BOOLEAN;
            case "TINYINT", "INT1" -> Kind.TINYINT;
            case "SMALLINT", "INT2" -> Kind.SMALLINT;
            case "INTEGER", "INT", "INT4" -> Kind.INTEGER;
            case "BIGINT", "INT8" -> Kind.BIGINT;
            case "HUGEINT", "INT128" -> Kind.HUGEINT;
            case "UTINYINT" -> Kind.UTINYINT;
            case "USMALLINT" -> Kind.USMALLINT;
            case "UINTEGER" -> Kind.UINTEGER;
            case "UBIGINT" -> Kind.UBIGINT;
            case "UHUGEINT" -> Kind.UHUGEINT;
            case "FLOAT", "REAL", "FLOAT4" -> Kind.FLOAT;
            case "DOUBLE", "FLOAT8" -> Kind.DOUBLE;
            case "VARCHAR", "TEXT", "STRING" -> Kind.VARCHAR;
            case "BLOB", "BYTEA" -> Kind.BLOB;
            case "DATE" -> Kind.DATE;
            case "TIME" -> Kind.TIME;
            case "TIME_NS" -> Kind.TIME_NS;
            case "TIME WITH TIME ZONE", "TIMETZ" -> Kind.TIME_TZ;
            case "TIMESTAMP_S" -> Kind.TIMESTAMP_S;
            case "TIMESTAMP_MS" -> Kind.TIMESTAMP_MS;
            case "TIMESTAMP", "DATETIME" -> Kind.TIMESTAMP;
            case "TIMESTAMP_NS" -> Kind.TIMESTAMP_NS;
            case "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ" -> Kind.TIMESTAMP_TZ;
            case "INTERVAL" -> Kind.INTERVAL;
            case "UUID" -> Kind.UUID;
            case "JSON" -> Kind.JSON;
            case "ENUM" -> Kind.ENUM;
            case "STRUCT" -> Kind.STRUCT;
            case "MAP" -> Kind.MAP;
            default -> Kind.OTHER;
        };
    }

    /** Index of the {@code [} that opens the trailing {@code [...]}, or -1. */
    private static int matchingOpenBracket(String sql) {
        int depth = 0;
        for (int i = sql.length() - 1; i >= 0; i--) {
            char c = sql.charAt(i);
            if (c == ']') {
                depth++;
            } else if (c == '[') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            } else if (depth == 1 && !Character.isDigit(c)) {
                return -1;
            }
        }
        return -1;
    }

    boolean isInteger() {
        return switch (kind) {
            case TINYINT, SMALLINT, INTEGER, BIGINT, HUGEINT, UTINYINT, USMALLINT, UINTEGER, UBIGINT, UHUGEINT -> true;
            default -> false;
        };
    }

    boolean isTimestamp() {
        return switch (kind) {
            case TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS, TIMESTAMP_TZ -> true;
            default -> false;
        };
    }

    boolean isNested() {
        return kind == Kind.LIST || kind == Kind.ARRAY || kind == Kind.STRUCT || kind == Kind.MAP;
    }

    /** Decimal digits left of the point an integer or decimal can hold; 0 when not exact numeric. */
    int integerDigits() {
        return switch (kind) {
            case TINYINT, UTINYINT -> 3;
            case SMALLINT, USMALLINT -> 5;
            case INTEGER, UINTEGER -> 10;
            case BIGINT -> 19;
            case UBIGINT -> 20;
            case HUGEINT, UHUGEINT -> 39;
            case DECIMAL -> precision - scale;
            default -> 0;
        };
    }

    /**
     * Whether every value of this type survives a cast to {@code to} unchanged: the same type, a wider integer, a
     * decimal with at least as many digits on both sides of the point, a float into a double, a small integer into a
     * double, a date into a timestamp, anything into text. What is not listed (a double into an integer, a decimal
     * into a smaller scale) could round or cut, so a caller refuses it rather than let DuckDB cast silently.
     */
    boolean castsLosslesslyTo(DuckDbType to) {
        requireNonNull(to, "to is null");
        if (sql.equalsIgnoreCase(to.sql) || to.kind == Kind.VARCHAR && !isNested()) {
            return true;
        }
        if ((isInteger() || kind == Kind.DECIMAL) && (to.isInteger() || to.kind == Kind.DECIMAL)) {
            boolean unsignedIntoSigned = isUnsigned() && !to.isUnsigned() && to.kind != Kind.DECIMAL;
            boolean signedIntoUnsigned = !isUnsigned() && to.isUnsigned();
            int scaleFrom = kind == Kind.DECIMAL ? scale : 0;
            int scaleTo = to.kind == Kind.DECIMAL ? to.scale : 0;
            return !signedIntoUnsigned && scaleTo >= scaleFrom && to.integerDigits() >= integerDigits()
                    && (!unsignedIntoSigned || to.integerDigits() > integerDigits());
        }
        if (to.kind == Kind.DOUBLE) {
            return kind == Kind.FLOAT || isInteger() && integerDigits() <= 10
                    || kind == Kind.DECIMAL && precision <= 15;
        }
        if (kind == Kind.DATE) {
            return to.kind == Kind.TIMESTAMP || to.kind == Kind.TIMESTAMP_NS || to.kind == Kind.TIMESTAMP_MS
                    || to.kind == Kind.TIMESTAMP_S;
        }
        if (kind == Kind.LIST && to.kind == Kind.LIST) {
            return element.orElseThrow().castsLosslesslyTo(to.element.orElseThrow());
        }
        return false;
    }

    private boolean isUnsigned() {
        return switch (kind) {
            case UTINYINT, USMALLINT, UINTEGER, UBIGINT, UHUGEINT -> true;
            default -> false;
        };
    }

    @Override
    public String toString() {
        return sql;
    }
}
