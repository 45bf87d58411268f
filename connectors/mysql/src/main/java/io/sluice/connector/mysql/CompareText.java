package io.sluice.connector.mysql;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.compare.FloatText;
import io.sluice.toolkit.copy.PgTypes;

/**
 * A column's value as the text PostgreSQL prints for it once loaded (under the digest settings: UTC, ISO dates, hex
 * bytea), computed by MySQL/MariaDB so {@code sluice compare} hashes the same text on both sides
 * ({@link io.sluice.spi.data.RowHash#PORTABLE}). One expression per pair of source type and target type the copy carries;
 * a pair whose text the two servers print differently (single-precision FLOAT, JSON, a value the target reads from the
 * server's own text) is refused with MY203, naming the column, before anything is compared. A DOUBLE prints its
 * shortest digits, as PostgreSQL prints them ({@link FloatText}); a FLOAT prints only 6 digits here, too few.
 */
final class CompareText {
    private static final FloatText.Strings STRINGS = new FloatText.Strings() {
        @Override
        public String before(String text, char mark) {
            return "SUBSTRING_INDEX(" + text + ", '" + mark + "', 1)";
        }

        @Override
        public String trimLeadingZeros(String text) {
            return "TRIM(LEADING '0' FROM " + text + ")";
        }

        @Override
        public String trimTrailingZeros(String text) {
            return "TRIM(TRAILING '0' FROM " + text + ")";
        }

        @Override
        public String toInteger(String text) {
            return "CAST(" + text + " AS SIGNED)";
        }

        @Override
        public String toText(String number) {
            return "CAST(" + number + " AS CHAR)";
        }
    };

    private CompareText() {
    }

    /** The text of {@code column} (quoted) of {@code type} as its {@code target} column prints it. */
    static String of(String column, MySqlType type, Column target) throws ConnectorException {
        int oid = target.copyTypeOid() != 0 ? target.copyTypeOid() : PgTypes.oid(target.typeName());
        String text = switch (type.kind()) {
            case BOOLEAN -> oid == PgTypes.BOOL ? "CASE WHEN " + column + " IS NULL THEN NULL WHEN " + column
                    + " = 0 THEN 'false' ELSE 'true' END" : integer(column, oid);
            case INT2, INT4, INT8, UINT8, YEAR -> integer(column, oid);
            // numeric(p,s) prints s fraction digits, as MySQL prints a DECIMAL(p,s)
            case DECIMAL -> oid == PgTypes.NUMERIC ? "CAST(" + column + " AS CHAR)" : null;
            // text prints as stored: CHAR drops its trailing spaces on both servers
            case TEXT -> oid == PgTypes.TEXT || oid == PgTypes.VARCHAR || oid == PgTypes.BPCHAR
                    ? "CONVERT(" + column + " USING utf8mb4)" : null;
            case BYTES -> oid == PgTypes.BYTEA ? "CONCAT('\\\\x', LOWER(HEX(" + column + ")))" : null;
            // the copy carries a geometry's WKB, without the SRID the server stores before it
            case GEOMETRY -> oid == PgTypes.BYTEA ? "CONCAT('\\\\x', LOWER(HEX(SUBSTRING(" + column + ", 5))))"
                    : null;
            case BIT -> oid == PgTypes.BIT || oid == PgTypes.VARBIT ? "LPAD(BIN(" + column + " + 0), "
                    + Math.max(type.length(), 1) + ", '0')" : null;
            case DATE -> oid == PgTypes.DATE ? "DATE_FORMAT(" + column + ", '%Y-%m-%d')"
                    : oid == PgTypes.TIMESTAMP ? "DATE_FORMAT(" + column + ", '%Y-%m-%d 00:00:00')" : null;
            case DATETIME -> oid == PgTypes.TIMESTAMP ? timestamp(column, "") : null;
            // the session reads TIMESTAMP in UTC, and PostgreSQL prints timestamptz in UTC as +00
            case TIMESTAMP -> oid == PgTypes.TIMESTAMPTZ ? timestamp(column, "+00")
                    : oid == PgTypes.TIMESTAMP ? timestamp(column, "") : null;
            case TIME -> oid == PgTypes.INTERVAL ? trimmedFraction("TIME_FORMAT(" + column + ", '%H:%i:%s.%f')")
                    : null;
            // its shortest digits, as PostgreSQL prints double precision; a FLOAT prints only 6 digits here
            case FLOAT8 -> oid == PgTypes.FLOAT8 ? FloatText.of(STRINGS, column, "CAST(ABS(" + column + ") AS CHAR)",
                    FloatText.Precision.DOUBLE) : null;
            case FLOAT4, JSON -> null;
        };
        if (text == null) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, MySqlCode.MY203, "column " + column + ": compare "
                    + "cannot yet print its " + type.declared() + " values loaded into " + target.typeName()
                    + " as PostgreSQL prints them, so it cannot compare them",
                    "compare streams whose columns are integers, decimals, doubles, text, binary, bits, dates "
                            + "and times (docs/mysql.md, \"Comparing\"); exclude the column, or check FLOAT and JSON "
                            + "columns with verify: count");
        }
        return text;
    }

    private static String integer(String column, int oid) {
        return oid == PgTypes.INT2 || oid == PgTypes.INT4 || oid == PgTypes.INT8 || oid == PgTypes.NUMERIC
                ? "CAST(" + column + " AS CHAR)" : null;
    }

    /** PostgreSQL prints a timestamp's fraction without trailing zeros, and none when it is zero. */
    private static String timestamp(String column, String zone) {
        String text = trimmedFraction("DATE_FORMAT(" + column + ", '%Y-%m-%d %H:%i:%s.%f')");
        return zone.isEmpty() ? text : "CONCAT(" + text + ", '" + zone + "')";
    }

    /** Trailing zeros of the fraction, then a bare point, trimmed: the point always stops the zeros. */
    private static String trimmedFraction(String withFraction) {
        return "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM " + withFraction + "))";
    }
}
