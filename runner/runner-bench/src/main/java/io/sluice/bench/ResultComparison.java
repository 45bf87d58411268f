package io.sluice.bench;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

import static java.util.Objects.requireNonNull;

/**
 * The ratios the report quotes, all between figures of the same harness run: a result's throughput over its
 * target's ingest limit, and over the fastest baseline of its section.
 */
final class ResultComparison {
    private final List<ScenarioResult> results;

    ResultComparison(List<ScenarioResult> results) {
        this.results = List.copyOf(requireNonNull(results, "results is null"));
    }

    List<ScenarioResult> results() {
        return results;
    }

    /** The ingest-limit result for the same target table (it may sit in another section, e.g. S3 vs local). */
    Optional<ScenarioResult> ingestLimit(ScenarioInfo info) {
        return results.stream().filter(ScenarioResult::ok)
                .filter(r -> r.info().role() == ScenarioRole.INGEST_LIMIT && r.info().target() == info.target())
                .findFirst();
    }

    /** The fastest baseline tool in the section (by median time). */
    Optional<ScenarioResult> bestBaseline(Section section) {
        return results.stream().filter(ScenarioResult::ok)
                .filter(r -> r.info().role() == ScenarioRole.BASELINE && r.info().section() == section)
                .min(Comparator.comparingDouble(ScenarioResult::medianSeconds));
    }

    OptionalDouble toIngestLimit(ScenarioResult r) {
        return r.ok() ? ingestLimit(r.info()).map(l -> OptionalDouble.of(l.medianSeconds() / r.medianSeconds()))
                .orElse(OptionalDouble.empty()) : OptionalDouble.empty();
    }

    OptionalDouble toBestBaseline(ScenarioResult r) {
        return r.ok() ? bestBaseline(r.info().section())
                .map(b -> OptionalDouble.of(b.medianSeconds() / r.medianSeconds())).orElse(OptionalDouble.empty())
                : OptionalDouble.empty();
    }

    /** A result by section and slug (and degree; 0 for none). */
    Optional<ScenarioResult> find(Section section, String slug, int degree) {
        return results.stream().filter(r -> r.info().section() == section && r.info().slug().equals(slug)
                && r.info().degree() == degree).findFirst();
    }

    /** Throughput ratio of two results ({@code a} over {@code b}), when both ran. */
    static OptionalDouble ratio(Optional<ScenarioResult> a, Optional<ScenarioResult> b) {
        if (a.isEmpty() || b.isEmpty() || !a.get().ok() || !b.get().ok()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(b.get().medianSeconds() / a.get().medianSeconds());
    }
}
