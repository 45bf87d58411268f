package io.sluice.connector.postgres.catalog;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether PostgreSQL, storing a value of one type into a column of another, changes it without an error: a numeric
 * rounded to fewer decimal places, a float rounded into numeric(p,s) or into real, a large integer or an unbounded
 * numeric into a float, a timestamp or time cut to fewer fractional digits. (A value that does not fit at all, too
 * long or too large, fails the row instead: that loses nothing.) Types as {@code format_type} spells them.
 */
public final class TypeLoss {
    private static final Pattern NUMERIC = Pattern.compile("numeric(?:\\((\\d+),(-?\\d+)\\))?");
    private static final Pattern TIME = Pattern.compile("(timestamp|time)(?:\\((\\d)\\))? with(out)? time zone");
    private static final int FLOAT8_DIGITS = 15;
    private static final int FLOAT4_DIGITS = 6;

    private TypeLoss() {
    }

    /** What storing {@code source} values in a {@code target} column silently changes; empty when nothing. */
    public static Optional<String> of(String source, String target) {
        if (source.equals(target)) {
            return Optional.empty();
        }
        Matcher tn = NUMERIC.matcher(target);
        if (tn.matches() && tn.group(1) != null) {
            int scale = Integer.parseInt(tn.group(2));
            Matcher sn = NUMERIC.matcher(source);
            if (sn.matches() && (sn.group(1) == null || Integer.parseInt(sn.group(2)) > scale)) {
                return Optional.of("values are rounded to " + scale + " decimal place(s)");
            }
            if (source.equals("double precision") || source.equals("real")) {
                return Optional.of("values are rounded to " + scale + " decimal place(s)");
            }
            return Optional.empty();
        }
        int floatDigits = target.equals("double precision") ? FLOAT8_DIGITS : target.equals("real") ? FLOAT4_DIGITS : 0;
        if (floatDigits > 0) {
            int digits = digitsOf(source);
            return digits > floatDigits ? Optional.of("values of more than " + floatDigits + " significant digits "
                    + "are rounded") : Optional.empty();
        }
        Matcher tt = TIME.matcher(target);
        Matcher st = TIME.matcher(source);
        if (tt.matches() && st.matches() && tt.group(1).equals(st.group(1))
                && (tt.group(3) == null) == (st.group(3) == null)) {
            int to = tt.group(2) == null ? 6 : Integer.parseInt(tt.group(2));
            int from = st.group(2) == null ? 6 : Integer.parseInt(st.group(2));
            if (from > to) {
                return Optional.of("fractions of a second are rounded to " + to + " digit(s)");
            }
        }
        return Optional.empty();
    }

    /** The most significant decimal digits a value of {@code type} has; 0 when not a number this class orders. */
    private static int digitsOf(String type) {
        return switch (type) {
            case "smallint" -> 5;
            case "integer" -> 10;
            case "bigint" -> 19;
            case "real" -> FLOAT4_DIGITS;
            case "double precision" -> FLOAT8_DIGITS + 2; // more than a real holds; a double itself is never cut
            default -> {
                Matcher n = NUMERIC.matcher(type);
                yield !n.matches() ? 0 : n.group(1) == null ? Integer.MAX_VALUE : Integer.parseInt(n.group(1));
            }
        };
    }
}
