package io.sluice.connector.mysql;

import io.sluice.toolkit.copy.PgTypes;

import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * A MySQL/MariaDB column type as {@code SHOW COLUMNS} gives it ({@code int(10) unsigned}, {@code decimal(12,2)},
 * {@code datetime(6)}, {@code enum('a','b')}), what kind of value the driver hands out for it, and the PostgreSQL
 * type that holds every value of it exactly (docs/mysql.md, "Types").
 *
 * @param declared the type as the server declares it, e.g. {@code bigint(20) unsigned}
 * @param base     its name without arguments, lower case, e.g. {@code bigint}
 * @param length   the first argument (length, precision, fsp, bits), -1 when none
 * @param scale    the second argument (a decimal's scale), -1 when none
 * @param unsigned whether it is UNSIGNED
 * @param json     a MariaDB JSON column (a longtext checked by json_valid), or MySQL's own JSON
 */
record MySqlType(String declared, String base, int length, int scale, boolean unsigned, boolean json) {
    /** The kinds of value the encoders read. */
    enum Kind {
        BOOLEAN, INT2, INT4, INT8, UINT8, FLOAT4, FLOAT8, DECIMAL, TEXT, JSON, BYTES, GEOMETRY, BIT, DATE, DATETIME,
        TIMESTAMP, TIME, YEAR
    }

    MySqlType {
        requireNonNull(declared, "declared is null");
        requireNonNull(base, "base is null");
    }

    /** Parses {@code SHOW COLUMNS}' Type; {@code json} from the table's checks (MariaDB) or the type (MySQL). */
    static MySqlType parse(String declared, boolean json) {
        String lower = declared.toLowerCase(Locale.ROOT).trim();
        int open = lower.indexOf('(');
        int space = lower.indexOf(' ');
        int end = open >= 0 ? open : space >= 0 ? space : lower.length();
        String base = lower.substring(0, end);
        int length = -1;
        int scale = -1;
        if (open >= 0 && !base.equals("enum") && !base.equals("set")) {
            String args = lower.substring(open + 1, lower.indexOf(')', open));
            String[] parts = args.split(",");
            length = Integer.parseInt(parts[0].trim());
            if (parts.length > 1) {
                scale = Integer.parseInt(parts[1].trim());
            }
        }
        boolean unsigned = lower.contains(" unsigned");
        return new MySqlType(declared, base, length, scale, unsigned, json || base.equals("json"));
    }

    Kind kind() {
        if (json) {
            return Kind.JSON;
        }
        return switch (base) {
            case "tinyint" -> length == 1 && !unsigned ? Kind.BOOLEAN : Kind.INT2;
            case "bool", "boolean" -> Kind.BOOLEAN;
            case "smallint" -> unsigned ? Kind.INT4 : Kind.INT2;
            case "mediumint" -> Kind.INT4;
            case "int", "integer" -> unsigned ? Kind.INT8 : Kind.INT4;
            case "bigint" -> unsigned ? Kind.UINT8 : Kind.INT8;
            case "float" -> Kind.FLOAT4;
            case "double", "real", "double precision" -> Kind.FLOAT8;
            case "decimal", "numeric", "dec", "fixed" -> Kind.DECIMAL;
            case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set" -> Kind.TEXT;
            case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" -> Kind.BYTES;
            case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
                 "geometrycollection", "geomcollection" -> Kind.GEOMETRY;
            case "bit" -> Kind.BIT;
            case "date" -> Kind.DATE;
            case "datetime" -> Kind.DATETIME;
            case "timestamp" -> Kind.TIMESTAMP;
            case "time" -> Kind.TIME;
            case "year" -> Kind.YEAR;
            default -> throw new IllegalArgumentException(declared);
        };
    }

    /** Whether Sluice carries this type (every MySQL/MariaDB type but those {@link #kind()} does not know). */
    boolean known() {
        try {
            kind();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The PostgreSQL type a created table gets for it: every value of the MySQL type fits, exactly. */
    String postgresType() {
        return switch (kind()) {
            case BOOLEAN -> "boolean";
            case INT2, YEAR -> "smallint";
            case INT4 -> "integer";
            case INT8 -> "bigint";
            case UINT8 -> "numeric(20,0)";
            case FLOAT4 -> "real";
            case FLOAT8 -> "double precision";
            case DECIMAL -> "numeric(" + (length < 0 ? 10 : length) + "," + Math.max(scale, 0) + ")";
            case TEXT -> switch (base) {
                case "char" -> "character(" + Math.max(length, 1) + ")";
                case "varchar" -> "character varying(" + length + ")";
                default -> "text";
            };
            case JSON -> "jsonb";
            case BYTES, GEOMETRY -> "bytea";
            case BIT -> "bit(" + Math.max(length, 1) + ")";
            case DATE -> "date";
            case DATETIME -> "timestamp(" + Math.max(length, 0) + ") without time zone";
            case TIMESTAMP -> "timestamp(" + Math.max(length, 0) + ") with time zone";
            case TIME -> "interval";
        };
    }

    /** The oid of {@link #postgresType()}'s type (its length left out). */
    int postgresOid() {
        return switch (kind()) {
            case BOOLEAN -> PgTypes.BOOL;
            case INT2, YEAR -> PgTypes.INT2;
            case INT4 -> PgTypes.INT4;
            case INT8 -> PgTypes.INT8;
            case UINT8, DECIMAL -> PgTypes.NUMERIC;
            case FLOAT4 -> PgTypes.FLOAT4;
            case FLOAT8 -> PgTypes.FLOAT8;
            case TEXT -> switch (base) {
                case "char" -> PgTypes.BPCHAR;
                case "varchar" -> PgTypes.VARCHAR;
                default -> PgTypes.TEXT;
            };
            case JSON -> PgTypes.JSONB;
            case BYTES, GEOMETRY -> PgTypes.BYTEA;
            case BIT -> PgTypes.BIT;
            case DATE -> PgTypes.DATE;
            case DATETIME -> PgTypes.TIMESTAMP;
            case TIMESTAMP -> PgTypes.TIMESTAMPTZ;
            case TIME -> PgTypes.INTERVAL;
        };
    }
}
