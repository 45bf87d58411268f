package io.sluice.toolkit.compare;

/**
 * One text of a binary floating-point value that PostgreSQL, MySQL/MariaDB and DuckDB all compute in SQL, from each
 * engine's own shortest round-trip text, so {@link io.sluice.spi.data.RowHash#PORTABLE} hashes a float alike on both sides.
 * The engines print the same shortest digits but place the point and spell the exponent their own ways
 * ({@code 1e+20}, {@code 1e20}, {@code 1000000000000000.0}, {@code 0.000015}): each side takes the significant digits
 * and the power of ten from its own text and writes {@code 0.<digits>e<power>} ({@code 0.15e-4}, {@code 0.1e21}), the
 * text taken apart with few references to it (each one is computed again per row). Past 2^53 a shortest text can
 * fall exactly on a rounding bound, where PostgreSQL's printer (Ryu without its bounds) prints more digits than the
 * others, and a {@code real} exactly between two shortest texts prints apart too: there the digits are rounded to the
 * type's precision (15 digits past 2^53, 6 for every {@code real}) on every side, and noise below it is not seen.
 * Zero is {@code 0}: MariaDB keeps no negative zero. NaN and the infinities are the caller's to spell.
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

        /** {@code text} without its leading zeros. */
        String trimLeadingZeros(String text);

        /** {@code text} without its trailing zeros. */
        String trimTrailingZeros(String text);

        /** A signed integer's text ({@code +20}, {@code -5}) as an integer. */
        String toInteger(String text);

        /** A number as its text. */
        String toText(String number);
    }

    /** The string functions as PostgreSQL spells them, and DuckDB alike. */
    public static final Strings POSTGRES_STRINGS = new Strings() {
        @Override
        public String before(String text, char mark) {
            return "split_part(" + text + ", '" + mark + "', 1)";
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
        public String toText(String number) {
            return "CAST(" + number + " AS varchar)";
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
        String exponent = "CASE WHEN LENGTH(" + mantissa + ") = LENGTH(" + shortestAbs + ") THEN 0 ELSE "
                + s.toInteger("SUBSTR(" + shortestAbs + ", LENGTH(" + mantissa + ") + 2)") + " END";
        String allDigits = "REPLACE(" + mantissa + ", '.', '')";
        String digits = s.trimTrailingZeros(s.trimLeadingZeros(allDigits));
        // the power of ten just above the first significant digit: the value is 0.<digits> times ten to it
        String power = "LENGTH(" + s.before(mantissa, '.') + ") - (LENGTH(" + allDigits + ") - LENGTH("
                + s.trimLeadingZeros(allDigits) + ")) + " + exponent;
        String fraction = "CONCAT('0.', " + digits + ")";
        String rounded = s.trimTrailingZeros(s.toText("ROUND(CAST(" + fraction + " AS DECIMAL(18,17)), "
                + precision.digits + ")"));
        // 0.99..9 rounds up to 1: written 0.1 at the next power, as a text that was 1e23 already is
        String roundedText = "CASE WHEN " + rounded + " = '1.' THEN CONCAT('0.1e', " + s.toText("(" + power
                + ") + 1") + ") ELSE CONCAT(" + rounded + ", 'e', " + s.toText(power) + ") END";
        return "CASE WHEN " + value + " IS NULL THEN NULL WHEN " + value + " = 0 THEN '0' ELSE CONCAT(CASE WHEN "
                + value + " < 0 THEN '-' ELSE '' END, CASE WHEN ABS(" + value + ") >= " + precision.roundedFrom
                + " THEN " + roundedText + " ELSE CONCAT(" + fraction + ", 'e', " + s.toText(power) + ") END) END";
    }
}
