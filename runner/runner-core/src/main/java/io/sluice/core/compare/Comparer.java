package io.sluice.core.compare;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.TargetRows;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * {@code sluice compare}: each planned stream (each table of a pattern) compared in spec order, one after another.
 * The plan must read every row of an incremental stream (planned as {@code --full-refresh} plans), since the target
 * should hold them all.
 */
public final class Comparer {
    private final BoundPlan plan;
    private final int maxDifferences;

    /** @param maxDifferences how many differences each stream lists (all are counted) */
    public Comparer(BoundPlan plan, int maxDifferences) {
        this.plan = requireNonNull(plan, "plan is null");
        if (maxDifferences < 0) {
            throw new IllegalArgumentException("maxDifferences must not be negative: " + maxDifferences);
        }
        this.maxDifferences = maxDifferences;
    }

    /**
     * {@code verify: compare}: a load's rows ({@code target}, before they go live where the load holds them back)
     * against the source as the run's {@code session} reads it (the run's snapshot).
     */
    public static StreamCompareReport loaded(StreamPlan plan, StreamBinding binding, SourceSession session,
                                             TargetRows target, int maxDifferences) throws ConnectorException {
        return new StreamComparer(plan, binding, maxDifferences).compare(session, target);
    }

    /** @param stream a stream's name (a pattern's stream: all its tables), or empty for every stream */
    public CompareReport compare(Optional<String> stream) {
        requireNonNull(stream, "stream is null");
        List<StreamPlan> chosen = plan.plan().streams().stream()
                .filter(s -> stream.isEmpty() || s.name().equals(stream.get())
                        || s.name().startsWith(stream.get() + "."))
                .toList();
        if (chosen.isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.COMPARE002, "the spec has no stream '"
                    + stream.orElse("") + "'", "name one of: " + String.join(", ", plan.plan().streams().stream()
                    .map(StreamPlan::name).toList()));
        }
        List<StreamCompareReport> reports = new ArrayList<>();
        for (StreamPlan s : chosen) {
            try {
                reports.add(new StreamComparer(s, plan.binding(s), maxDifferences).compare());
            } catch (ConnectorException e) {
                throw new SluiceException(e.kind(), e.code(), "stream '" + s.name() + "': " + e.getMessage(),
                        e.fix().orElse(null), e);
            }
        }
        return new CompareReport(plan.plan().spec().name(), reports);
    }
}
