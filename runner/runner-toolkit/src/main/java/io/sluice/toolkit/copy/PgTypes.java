package io.sluice.toolkit.copy;

import java.util.Locale;

/**
 * PostgreSQL's oids of the built-in types sources write in binary COPY, and a type name's oid (for a target column
 * whose oid is not known, e.g. one a spec or {@code format_type} names). Oids of built-in types never change.
 */
public final class PgTypes {
    public static final int BOOL = 16;
    public static final int BYTEA = 17;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int JSON = 114;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    public static final int BPCHAR = 1042;
    public static final int VARCHAR = 1043;
    public static final int DATE = 1082;
    public static final int TIME = 1083;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int INTERVAL = 1186;
    public static final int BIT = 1560;
    public static final int VARBIT = 1562;
    public static final int NUMERIC = 1700;
    public static final int JSONB = 3802;

    private PgTypes() {
    }

    /** The oid of a type by its name ({@code timestamp(3) with time zone}, {@code int8}); 0 when not one of these. */
    public static int oid(String typeName) {
        String name = typeName.toLowerCase(Locale.ROOT).trim();
        int paren = name.indexOf('(');
        String base = paren < 0 ? name : name.substring(0, paren) + name.substring(name.indexOf(')') + 1);
        return switch (base.trim().replaceAll("\\s+", " ")) {
            case "boolean", "bool" -> BOOL;
            case "bytea" -> BYTEA;
            case "bigint", "int8" -> INT8;
            case "smallint", "int2" -> INT2;
            case "integer", "int", "int4" -> INT4;
            case "text" -> TEXT;
            case "json" -> JSON;
            case "real", "float4" -> FLOAT4;
            case "double precision", "float8" -> FLOAT8;
            case "character", "char", "bpchar" -> BPCHAR;
            case "character varying", "varchar" -> VARCHAR;
            case "date" -> DATE;
            case "time", "time without time zone" -> TIME;
            case "timestamp", "timestamp without time zone" -> TIMESTAMP;
            case "timestamptz", "timestamp with time zone" -> TIMESTAMPTZ;
            case "interval" -> INTERVAL;
            case "bit" -> BIT;
            case "bit varying", "varbit" -> VARBIT;
            case "numeric", "decimal" -> NUMERIC;
            case "jsonb" -> JSONB;
            default -> 0;
        };
    }
}
