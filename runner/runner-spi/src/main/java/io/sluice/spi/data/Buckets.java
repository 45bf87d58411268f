package io.sluice.spi.data;

import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * Which rows a compare asks for, by bucket: a row's bucket is the {@link RowHash} of its key's text (of the whole
 * row's text without a key) modulo {@code count}, the same on every server, so both sides put a row in the same
 * bucket. {@link #ALL} is every row.
 *
 * @param chosen the buckets wanted, each in {@code [0, count)}
 */
public record Buckets(int count, Set<Integer> chosen) {
    public static final Buckets ALL = new Buckets(1, Set.of(0));

    public Buckets {
        if (count < 1) {
            throw new IllegalArgumentException("count must be positive: " + count);
        }
        chosen = java.util.Collections.unmodifiableSet(new TreeSet<>(requireNonNull(chosen, "chosen is null")));
        if (chosen.stream().anyMatch(b -> b < 0 || b >= count)) {
            throw new IllegalArgumentException("a chosen bucket lies outside [0, " + count + "): " + chosen);
        }
    }

    public boolean all() {
        return count == 1 && chosen.contains(0);
    }
}
