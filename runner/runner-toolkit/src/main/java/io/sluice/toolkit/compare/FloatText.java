package io.sluice.toolkit.compare;

/**
 * One text of a binary floating-point value that PostgreSQL, MySQL/MariaDB and DuckDB all compute in SQL, from each
 * engine's own shortest round-trip text, so {@link io.sluice.spi.RowHash#PORTABLE} hashes a float alike on both sides.
 * The engines print the same shortest digits but place the point and spell the exponent their own ways
 * ({@code 1e+20}, {@code 1e20}, {@code 1000000000000000.0}, {@code 0.000015}): the digits and the decimal exponent are
 * taken from the text and laid out as PostgreSQL lays them, positional while the exponent is from -4 to 14, otherwise
 * {@code d.ddde+XX}. So a double below 2^53 prints exactly PostgreSQL's own text. Past 2^53 a shortest text can fall
 * exactly on a rounding bound, where PostgreSQL's printer (Ryu without its bounds) prints more digits than the others;
 * and a {@code real} exactly between two shortest texts prints apart too: there the digits are rounded to the type's
 * precision (15 digits, or 6 for every {@code real}) on every side, and noise below it is not seen. Zero is
 * {@code 0}: MariaDB keeps no negative zero. NaN and the infinities are the caller's to spell.
 */
public final class FloatText {
    /** The precision a float is compared at, by the type its target column stores. */
    public enum Precision {
        /** Exact below 2^53, 15 digits from there. */
        DOUBLE(15, "9007199254740992"),
        /** 6 digits. */
        REAL(6, "0");

        private final int digits;
        private final String roundedFrom;

        Precision(int digits, String roundedFrom) {
            this.digits = digits;
            this.roundedFrom = roundedFrom;
        }
    }

    /** The string functions an engine spells its own way. */
    public interface Strings {
        /** {@code text} up to the first {@code mark}, all of it without one. */
        String before(String text, char mark);

        /** {@code text} after the first {@code mark}, empty without one. */
        String after(String text, char mark);

        /** {@code text} without its leading zeros. */
        String trimLeadingZeros(String text);

        /** {@code text} without its trailing zeros. */
        String trimTrailingZeros(String text);

        /** A signed integer's text ({@code +20}, {@code -5}) as an integer. */
        String toInteger(String text);

        /** An integer as its decimal text. */
        String toText(String integer);
    }

    /** The string functions as PostgreSQL spells them, and DuckDB alike. */
    public static final Strings POSTGRES_STRINGS = new Strings() {
        @Override
        public String before(String text, char mark) {
            return "split_part(" + text + ", '" + mark + "', 1)";
        }

        @Override
        public String after(String text, char mark) {
            return "(CASE WHEN strpos(" + text + ", '" + mark + "') > 0 THEN substr(" + text + ", strpos(" + text
                    + ", '" + mark + "') + 1) ELSE '' END)";
        }

        @Override
        public String trimLeadingZeros(String text) {
            return "ltrim(" + text + ", '0')";
        }

        @Override
        public String trimTrailingZeros(String text) {
            return "rtrim(" + text + ", '0')";
        }

        @Override
        public String toInteger(String text) {
            return "CAST(" + text + " AS integer)";
        }

        @Override
        public String toText(String integer) {
            return "CAST(" + integer + " AS varchar)";
        }
    };

    private FloatText() {
    }

    /**
     * The text of {@code value} (an expression, NULL for NULL, neither NaN nor infinite) whose absolute value the
     * engine prints as {@code shortestAbs}, compared at {@code precision}.
     */
    public static String of(Strings s, String value, String shortestAbs, Precision precision) {
        String mantissa = s.before(shortestAbs, 'e');
        String exponent = "(CASE WHEN " + shortestAbs + " LIKE '%e%' THEN " + s.toInteger(s.after(shortestAbs, 'e'))
                + " ELSE 0 END)";
        String whole = s.before(mantissa, '.');
        String all = "CONCAT(" + whole + ", " + s.after(mantissa, '.') + ")";
        String significant = s.trimLeadingZeros(all);
        String d = s.trimTrailingZeros(significant);
        // the power of ten of the first significant digit
        String e = "(LENGTH(" + whole + ") - (LENGTH(" + all + ") - LENGTH(" + significant + ")) - 1 + " + exponent
                + ")";
        String positional = "CASE WHEN " + e + " < 0 THEN CONCAT('0.', REPEAT('0', -" + e + " - 1), " + d + ")"
                + " WHEN LENGTH(" + d + ") <= " + e + " + 1 THEN CONCAT(" + d + ", REPEAT('0', " + e + " + 1 - LENGTH("
                + d + ")))"
                + " ELSE CONCAT(LEFT(" + d + ", " + e + " + 1), '.', SUBSTRING(" + d + ", " + e + " + 2)) END";

        // 0.ddd rounded half up to the precision: 1 when it carries into the next power of ten
        String rounded = "ROUND(CAST(CONCAT('0.', " + d + ") AS DECIMAL(18,17)), " + precision.digits + ")";
        String roundedDigits = "CASE WHEN " + rounded + " >= 1 THEN '1' ELSE " + s.trimTrailingZeros(
                "SUBSTRING(CONCAT(" + rounded + "), 3)") + " END";
        String roundedExponent = "(" + e + " + CASE WHEN " + rounded + " >= 1 THEN 1 ELSE 0 END)";
        String roundedText = scientific(s, roundedDigits, roundedExponent);
        return "CASE WHEN " + value + " IS NULL THEN NULL WHEN " + value + " = 0 THEN '0' ELSE CONCAT(CASE WHEN "
                + value + " < 0 THEN '-' ELSE '' END, CASE WHEN ABS(" + value + ") >= " + precision.roundedFrom
                + " THEN " + roundedText + " WHEN " + e + " BETWEEN -4 AND " + (precision.digits - 1)
                + " THEN " + positional + " ELSE " + scientific(s, d, e) + " END) END";
    }

    /** {@code d.ddde+XX} of the digits {@code d}, the first at the power of ten {@code e}. */
    private static String scientific(Strings s, String d, String e) {
        return "CONCAT(LEFT(" + d + ", 1), CASE WHEN LENGTH(" + d + ") > 1 THEN CONCAT('.', SUBSTRING(" + d + ", 2))"
                + " ELSE '' END, 'e', CASE WHEN " + e + " < 0 THEN '-' ELSE '+' END, CASE WHEN ABS(" + e + ") < 10 "
                + "THEN '0' ELSE '' END, " + s.toText("ABS(" + e + ")") + ")";
    }
}
