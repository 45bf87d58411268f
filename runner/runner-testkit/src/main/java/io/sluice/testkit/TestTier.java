package io.sluice.testkit;

import org.junit.jupiter.api.DynamicTest;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Which tier of the test suite runs, read from the system property {@code sluice.tests} (the build sets it):
 * <ul>
 *   <li>{@code quick}, the README's {@code ./mvnw -B verify}: the unit and contract tests, and of every end-to-end
 *       family a deterministic sample ({@link #select}) that covers each value of each of its factors, and as many of
 *       their pairs as its budget allows;</li>
 *   <li>{@code full}, {@code ./mvnw -B verify -Pfull}: every case;</li>
 *   <li>{@code rest}, {@code -Pfull -Dsluice.tests=rest} (.ci/run's second pass): exactly what {@code quick} left out,
 *       so the two passes together run every case once.</li>
 * </ul>
 * Whole classes or methods that only the full suite runs carry {@code @Tag(TestTier.FULL_ONLY)} (the build excludes
 * the tag in {@code quick} and selects it, with {@link #SAMPLED}, in {@code rest}); classes with a sampled family carry
 * {@code @Tag(TestTier.SAMPLED)}.
 *
 * <p>One case, whatever the tier: {@code -Dsluice.case=<text>} runs the cases whose name contains it (with {@code
 * -Dtest=<Class>}), e.g. {@code ./mvnw -B verify -pl runner/runner-app -am -Dtest=CrashMatrixRewriteTest
 * -Dsurefire.failIfNoSpecifiedTests=false "-Dsluice.case=REPLACE / SIGKILL / LAST / FRESH"}.
 */
public enum TestTier {
    QUICK, FULL, REST;

    /** A tag for tests only the full suite runs. */
    public static final String FULL_ONLY = "full";
    /** A tag for classes whose end-to-end family is sampled in the quick tier. */
    public static final String SAMPLED = "sampled";

    public static TestTier current() {
        String value = System.getProperty("sluice.tests", "quick").trim().toUpperCase(Locale.ROOT);
        try {
            return value.isEmpty() ? QUICK : valueOf(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("-Dsluice.tests=" + value.toLowerCase(Locale.ROOT)
                    + " is not a tier: quick, full or rest");
        }
    }

    /**
     * The cases of a family this tier runs, in their order: {@code quick} a deterministic sample of at most
     * {@code budget} cases (never fewer than it takes to cover every factor value), {@code rest} the others,
     * {@code full} all. {@code factors} gives a case's factor values in a fixed order (e.g. mode, failure, moment,
     * recovery). With {@code -Dsluice.case=...} only the cases whose {@code name} contains it, in any tier.
     */
    public <T> List<T> select(List<T> all, Function<T, List<?>> factors, int budget, Function<T, String> name) {
        String only = System.getProperty("sluice.case", "").trim();
        if (!only.isEmpty()) {
            return all.stream().filter(c -> name.apply(c).contains(only)).toList();
        }
        if (this == FULL) {
            return List.copyOf(all);
        }
        Set<T> sample = new HashSet<>(coveringSample(all, factors, budget));
        return all.stream().filter(c -> sample.contains(c) == (this == QUICK)).toList();
    }

    /** One cell of a matrix, given its factor values in the factors' order. */
    @FunctionalInterface
    public interface Cell {
        void run(List<Enum<?>> values) throws Throwable;
    }

    /**
     * A matrix as dynamic tests: the product of {@code factors}' values (the first factor varies slowest), the cells
     * this tier runs ({@link #select}, at most {@code budget} in quick), each named {@code A / B / C}; a failing
     * cell's message starts with its name (Surefire's reports number dynamic tests), which {@code -Dsluice.case}
     * takes.
     */
    public static Stream<DynamicTest> matrix(int budget, List<List<? extends Enum<?>>> factors, Cell cell) {
        List<List<Enum<?>>> cells = new ArrayList<>();
        cells.add(List.of());
        for (List<? extends Enum<?>> factor : factors) {
            List<List<Enum<?>>> longer = new ArrayList<>();
            for (List<Enum<?>> prefix : cells) {
                for (Enum<?> value : factor) {
                    List<Enum<?>> next = new ArrayList<>(prefix);
                    next.add(value);
                    longer.add(List.copyOf(next));
                }
            }
            cells = longer;
        }
        return current().select(cells, values -> values, budget, TestTier::name).stream()
                .map(values -> DynamicTest.dynamicTest(name(values), () -> {
                    try {
                        cell.run(values);
                    } catch (AssertionError e) {
                        throw new AssertionError(name(values) + ": " + e.getMessage(), e);
                    }
                }));
    }

    private static String name(List<Enum<?>> values) {
        return String.join(" / ", values.stream().map(Enum::name).toList());
    }

    /**
     * Greedy covering: first every value of every factor, then pairs of values, at most {@code budget} cases once
     * the values are covered. Each step takes the first case (in the given order) that covers the most values not yet
     * covered, then the most pairs; so the same list and budget always give the same sample.
     */
    static <T> List<T> coveringSample(List<T> all, Function<T, List<?>> factors, int budget) {
        Set<List<Object>> singles = new LinkedHashSet<>();
        Set<List<Object>> pairs = new LinkedHashSet<>();
        for (T c : all) {
            singles.addAll(singlesOf(factors.apply(c)));
            pairs.addAll(pairsOf(factors.apply(c)));
        }
        List<T> chosen = new ArrayList<>();
        List<T> left = new ArrayList<>(all);
        while (!left.isEmpty() && (!singles.isEmpty() || (chosen.size() < budget && !pairs.isEmpty()))) {
            T best = null;
            long bestScore = 0;
            for (T c : left) {
                List<?> values = factors.apply(c);
                long newSingles = singlesOf(values).stream().filter(singles::contains).count();
                long newPairs = pairsOf(values).stream().filter(pairs::contains).count();
                long score = newSingles * 1_000 + newPairs;
                if (score > bestScore) {
                    best = c;
                    bestScore = score;
                }
            }
            if (best == null) {
                break;
            }
            chosen.add(best);
            left.remove(best);
            singlesOf(factors.apply(best)).forEach(singles::remove);
            pairsOf(factors.apply(best)).forEach(pairs::remove);
        }
        return chosen;
    }

    private static List<List<Object>> singlesOf(List<?> values) {
        List<List<Object>> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            out.add(List.of(i, values.get(i)));
        }
        return out;
    }

    private static List<List<Object>> pairsOf(List<?> values) {
        List<List<Object>> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            for (int j = i + 1; j < values.size(); j++) {
                out.add(List.of(i, values.get(i), j, values.get(j)));
            }
        }
        return out;
    }
}
