package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * A target column's PostgreSQL type, from the {@code format_type} name and the OID the target connector reports.
 * Arrays of built-in types know their element OID from a fixed table (PostgreSQL checks it on binary input);
 * arrays of user-defined types are {@link Base#OTHER}.
 */
record PgType(Base base, String name, int oid, int length, int precision, int scale, Optional<PgType> element) {
    enum Base {
        BOOL(16, 1000), BYTEA(17, 1001), INT8(20, 1016), INT2(21, 1005), INT4(23, 1007), TEXT(25, 1009),
        JSON(114, 199), FLOAT4(700, 1021), FLOAT8(701, 1022), BPCHAR(1042, 1014), VARCHAR(1043, 1015),
        DATE(1082, 1182), TIME(1083, 1183), TIMESTAMP(1114, 1115), TIMESTAMPTZ(1184, 1185), INTERVAL(1186, 1187),
        NUMERIC(1700, 1231), UUID(2950, 2951), JSONB(3802, 3807), ARRAY(0, 0), OTHER(0, 0);

        final int oid;
        final int arrayOid;

        Base(int oid, int arrayOid) {
            this.oid = oid;
            this.arrayOid = arrayOid;
        }
    }

    private static final Pattern TYPMOD = Pattern.compile("\\(\\s*(\\d+)\\s*(?:,\\s*(-?\\d+)\\s*)?\\)");

    PgType {
        requireNonNull(base, "base is null");
        requireNonNull(name, "name is null");
        requireNonNull(element, "element is null");
    }

    static PgType of(Column column) {
        return parse(column.typeName(), column.copyTypeOid());
    }

    static PgType parse(String typeName, int oid) {
        String name = requireNonNull(typeName, "typeName is null").strip();
        if (name.endsWith("[]")) {
            PgType element = parse(name.substring(0, name.length() - 2), 0);
            if (element.base == Base.ARRAY || element.base == Base.OTHER) {
                // multi-dimensional or user-defined element: the element OID is unknown here
                return new PgType(Base.OTHER, name, oid, -1, -1, -1, Optional.empty());
            }
            return new PgType(Base.ARRAY, name, oid != 0 ? oid : element.base.arrayOid, -1, -1, -1,
                    Optional.of(element));
        }
        int length = -1;
        int precision = -1;
        int scale = -1;
        Matcher m = TYPMOD.matcher(name);
        String bare = name;
        if (m.find()) {
            int first = Integer.parseInt(m.group(1));
            if (m.group(2) != null) {
                precision = first;
                scale = Integer.parseInt(m.group(2));
            } else {
                length = first;
                precision = first;
                scale = 0;
            }
            bare = (name.substring(0, m.start()) + name.substring(m.end())).replaceAll("\\s+", " ").strip();
        }
        String unmodified = bare;
        Base base = byOid(oid).orElseGet(() -> byName(unmodified));
        if (base != Base.NUMERIC && base != Base.VARCHAR && base != Base.BPCHAR) {
            length = -1;
            precision = base == Base.TIMESTAMP || base == Base.TIMESTAMPTZ || base == Base.TIME ? precision : -1;
            scale = -1;
        }
        if (base == Base.BPCHAR && length < 0 && unmodified.equalsIgnoreCase("character")) {
            length = 1; // SQL's "character" means char(1)
        }
        return new PgType(base, name, oid != 0 ? oid : base.oid, length, precision, scale, Optional.empty());
    }

    private static Optional<Base> byOid(int oid) {
        if (oid == 0) {
            return Optional.empty();
        }
        for (Base base : Base.values()) {
            if (base.oid == oid && base.oid != 0) {
                return Optional.of(base);
            }
            if (base.arrayOid == oid && base.oid != 0) {
                return Optional.of(Base.ARRAY);
            }
        }
        return Optional.empty();
    }

    private static Base byName(String bare) {
        return switch (bare.toLowerCase(Locale.ROOT)) {
            case "boolean", "bool" -> Base.BOOL;
            case "bytea" -> Base.BYTEA;
            case "bigint", "int8" -> Base.INT8;
            case "smallint", "int2" -> Base.INT2;
            case "integer", "int", "int4" -> Base.INT4;
            case "text" -> Base.TEXT;
            case "json" -> Base.JSON;
            case "real", "float4" -> Base.FLOAT4;
            case "double precision", "float8" -> Base.FLOAT8;
            case "character", "bpchar", "char" -> Base.BPCHAR;
            case "character varying", "varchar" -> Base.VARCHAR;
            case "date" -> Base.DATE;
            case "time without time zone", "time" -> Base.TIME;
            case "timestamp without time zone", "timestamp" -> Base.TIMESTAMP;
            case "timestamp with time zone", "timestamptz" -> Base.TIMESTAMPTZ;
            case "numeric", "decimal" -> Base.NUMERIC;
            case "uuid" -> Base.UUID;
            case "jsonb" -> Base.JSONB;
            default -> bare.toLowerCase(Locale.ROOT).startsWith("interval") ? Base.INTERVAL : Base.OTHER;
        };
    }

    boolean isText() {
        return base == Base.TEXT || base == Base.VARCHAR || base == Base.BPCHAR;
    }

    /** Digits left of the point a numeric column accepts; {@code Integer.MAX_VALUE} when unconstrained. */
    int integerDigits() {
        return precision < 0 ? Integer.MAX_VALUE : precision - scale;
    }

    @Override
    public String toString() {
        return name;
    }
}
