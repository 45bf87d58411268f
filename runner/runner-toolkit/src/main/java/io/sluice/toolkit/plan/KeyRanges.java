package io.sluice.toolkit.plan;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Splits an integer key's span into contiguous ranges for {@code distribution: range} on sources that plan by SQL
 * predicates: the key's minimum to maximum cut evenly, each range {@code [from, to)}, the first open below (it also
 * takes NULL keys) and the last open above, so every row lands in exactly one.
 */
public final class KeyRanges {
    /** At most this many ranges, whatever the rows per partition ask. */
    public static final int MAX_RANGES = 10_000;

    private KeyRanges() {
    }

    /** One range: bounds absent where the range is open. */
    public record Range(java.util.Optional<BigInteger> from, java.util.Optional<BigInteger> to) {
        public Range {
            requireNonNull(from, "from is null");
            requireNonNull(to, "to is null");
        }

        /** The predicate over {@code key} (a quoted column), NULL keys in the first range. */
        public String predicate(String key) {
            if (from.isEmpty() && to.isEmpty()) {
                return "1 = 1";
            }
            if (from.isEmpty()) {
                return "(" + key + " < " + to.get() + " OR " + key + " IS NULL)";
            }
            return to.isEmpty() ? key + " >= " + from.get() : key + " >= " + from.get() + " AND " + key + " < "
                    + to.get();
        }

        /** A stable id, e.g. {@code range-100-200}. */
        public String id() {
            return "range-" + from.map(String::valueOf).orElse("") + "-" + to.map(String::valueOf).orElse("");
        }
    }

    /** {@code wanted} ranges (at least 1, at most the span and {@link #MAX_RANGES}) over {@code [min, max]}. */
    public static List<Range> split(BigInteger min, BigInteger max, long wanted) {
        requireNonNull(min, "min is null");
        requireNonNull(max, "max is null");
        BigInteger span = max.subtract(min).add(BigInteger.ONE);
        int n = (int) Math.max(1, Math.min(Math.min(wanted, MAX_RANGES), span.min(BigInteger.valueOf(MAX_RANGES))
                .longValue()));
        List<Range> ranges = new ArrayList<>();
        BigInteger from = null;
        for (int i = 0; i < n; i++) {
            BigInteger to = i == n - 1 ? null : min.add(span.multiply(BigInteger.valueOf(i + 1))
                    .divide(BigInteger.valueOf(n)));
            ranges.add(new Range(java.util.Optional.ofNullable(from), java.util.Optional.ofNullable(to)));
            from = to;
        }
        return ranges;
    }

    /** One of {@code distribution: modulo}'s buckets: its id and predicate. */
    public record Bucket(String id, String predicate) {
        public Bucket {
            requireNonNull(id, "id is null");
            requireNonNull(predicate, "predicate is null");
        }
    }

    /**
     * {@code n} buckets by the key's remainder, in standard SQL's {@code MOD} (made non-negative for negative keys),
     * NULL keys in the first.
     */
    public static List<Bucket> modulo(String key, int n) {
        requireNonNull(key, "key is null");
        List<Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String predicate = "MOD(MOD(" + key + ", " + n + ") + " + n + ", " + n + ") = " + i;
            buckets.add(new Bucket("mod-" + i + "-of-" + n, i == 0 ? "(" + key + " IS NULL OR " + predicate + ")"
                    : predicate));
        }
        return buckets;
    }

    /**
     * A partition's checkpoint: its id's length, its id, its predicate ({@code 9:value='a'k = 'a'}), so neither may
     * hold any character, a data-driven value's {@code |} or {@code :} included.
     */
    public static String checkpoint(String id, String predicate) {
        return id.length() + ":" + id + requireNonNull(predicate, "predicate is null");
    }

    /** The id and predicate {@link #checkpoint} wrote; empty for text it did not write. */
    public static java.util.Optional<Bucket> restore(String checkpoint) {
        int colon = checkpoint.indexOf(':');
        if (colon <= 0 || !checkpoint.substring(0, colon).chars().allMatch(Character::isDigit)) {
            return java.util.Optional.empty();
        }
        int length = Integer.parseInt(checkpoint.substring(0, colon));
        if (colon + 1 + length > checkpoint.length()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new Bucket(checkpoint.substring(colon + 1, colon + 1 + length),
                checkpoint.substring(colon + 1 + length)));
    }
}
