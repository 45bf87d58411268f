package io.sluice.connector.postgres.catalog;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a value of one PostgreSQL type always fits a column of another, and the narrowest type that holds both
 * when it does not ({@code schema-changes: widen}). Only families whose order is plain are known: integers
 * (smallint, integer, bigint), numeric(p,s), real and double precision, varchar(n) and text. Types are spelled as
 * {@code format_type} spells them.
 */
public final class TypeWidth {
    /** How a source type meets a target column's. */
    public enum Fit {
        /** Every value of the source fits, or the two are of families this class does not order (left to the cast). */
        FITS,
        /** Some values would not fit, and a wider target type holds them all: {@link TypeWidth#widened}. */
        WIDENS,
        /** Some values would not fit, and no widening of the target's family holds them. */
        INCOMPATIBLE
    }

    private static final Pattern NUMERIC = Pattern.compile("numeric(?:\\((\\d+),(\\d+)\\))?");
    private static final Pattern VARCHAR = Pattern.compile("character varying(?:\\((\\d+)\\))?");
    private static final int MAX_NUMERIC_PRECISION = 1000;

    private sealed interface Kind permits Int, Numeric, Floating, Text, Other {
    }

    /** rank 1..3 for smallint, integer, bigint; digits: the most decimal digits a value has. */
    private record Int(int rank, int digits) implements Kind {
    }

    /** precision empty: unconstrained. */
    private record Numeric(Optional<Integer> precision, int scale) implements Kind {
        int integerDigits() {
            return precision.orElseThrow() - scale;
        }
    }

    private record Floating(int rank) implements Kind {
    }

    /** length empty: unbounded (text, varchar). */
    private record Text(Optional<Integer> length) implements Kind {
    }

    private record Other(String name) implements Kind {
    }

    private TypeWidth() {
    }

    public static Fit fit(String source, String target) {
        if (source.equals(target)) {
            return Fit.FITS;
        }
        Kind s = kind(source);
        Kind t = kind(target);
        if (s instanceof Other || t instanceof Other) {
            return Fit.FITS;
        }
        if (fits(s, t)) {
            return Fit.FITS;
        }
        return widened(source, target).isPresent() ? Fit.WIDENS : Fit.INCOMPATIBLE;
    }

    /** The narrowest type of the target's family that holds every value of both; empty when there is none. */
    public static Optional<String> widened(String source, String target) {
        Kind s = kind(source);
        Kind t = kind(target);
        if (s instanceof Int si && t instanceof Int ti) {
            return Optional.of(si.rank() > ti.rank() ? source : target);
        }
        if (s instanceof Int si && t instanceof Numeric tn) {
            return tn.precision().isEmpty() ? Optional.of(target)
                    : Optional.of(numeric(Math.max(si.digits(), tn.integerDigits()), tn.scale()));
        }
        if (s instanceof Numeric sn && t instanceof Numeric tn) {
            if (sn.precision().isEmpty() || tn.precision().isEmpty()) {
                return Optional.of("numeric");
            }
            return Optional.of(numeric(Math.max(sn.integerDigits(), tn.integerDigits()),
                    Math.max(sn.scale(), tn.scale())));
        }
        if (s instanceof Floating && t instanceof Floating) {
            return Optional.of("double precision");
        }
        if (s instanceof Text st && t instanceof Text tt) {
            if (st.length().isEmpty() || tt.length().isEmpty()) {
                return Optional.of("text");
            }
            return Optional.of("character varying(" + Math.max(st.length().get(), tt.length().get()) + ")");
        }
        return Optional.empty();
    }

    private static String numeric(int integerDigits, int scale) {
        int precision = integerDigits + scale;
        return precision > MAX_NUMERIC_PRECISION ? "numeric" : "numeric(" + precision + "," + scale + ")";
    }

    private static boolean fits(Kind s, Kind t) {
        if (t instanceof Text tt && tt.length().isEmpty()) {
            return true; // text holds every value's text
        }
        return switch (s) {
            case Int si when t instanceof Int ti -> si.rank() <= ti.rank();
            case Int si when t instanceof Numeric tn -> tn.precision().isEmpty() || tn.integerDigits() >= si.digits();
            // real holds every smallint exactly, double precision every integer; bigint loses digits in both
            case Int si when t instanceof Floating tf -> si.rank() == 1 || si.rank() == 2 && tf.rank() == 2;
            case Numeric sn when t instanceof Numeric tn -> tn.precision().isEmpty() || sn.precision().isPresent()
                    && sn.integerDigits() <= tn.integerDigits() && sn.scale() <= tn.scale();
            case Floating sf when t instanceof Floating tf -> sf.rank() <= tf.rank();
            case Floating sf when t instanceof Numeric tn -> tn.precision().isEmpty();
            case Text st when t instanceof Text tt -> tt.length().isEmpty()
                    || st.length().isPresent() && st.length().get() <= tt.length().get();
            default -> false;
        };
    }

    private static Kind kind(String type) {
        switch (type) {
            case "smallint":
                return new Int(1, 5);
            case "integer":
                return new Int(2, 10);
            case "bigint":
                return new Int(3, 19);
            case "real":
                return new Floating(1);
            case "double precision":
                return new Floating(2);
            case "text":
                return new Text(Optional.empty());
            default:
                break;
        }
        Matcher numeric = NUMERIC.matcher(type);
        if (numeric.matches()) {
            return numeric.group(1) == null ? new Numeric(Optional.empty(), 0)
                    : new Numeric(Optional.of(Integer.parseInt(numeric.group(1))), Integer.parseInt(numeric.group(2)));
        }
        Matcher varchar = VARCHAR.matcher(type);
        if (varchar.matches()) {
            return new Text(varchar.group(1) == null ? Optional.empty()
                    : Optional.of(Integer.parseInt(varchar.group(1))));
        }
        return new Other(type);
    }
}
