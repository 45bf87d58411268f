package io.sluice.core.run;

import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.ledger.StreamKey;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The targets' work once every stream of the run is done ({@code Target#finishAfterStreams}: foreign keys between
 * the run's tables): done by the stream that finishes its load last, before it is recorded done, so a crash during it
 * leaves that stream unfinished and a resume does it again. Every target of the spec takes part with its stream's
 * marks of the run, those of streams a resume skipped as done included.
 */
final class AfterStreams {
    private final Map<String, StreamBinding> everyTarget;
    private final RunIdentity run;
    /** The marks each stream of this process used (with ledger: off they live only there). */
    private final Map<String, LoadMarks> used = new ConcurrentHashMap<>();
    private int loading;

    private AfterStreams(Map<String, StreamBinding> everyTarget, RunIdentity run, int loading) {
        this.everyTarget = new TreeMap<>(everyTarget);
        this.run = run;
        this.loading = loading;
    }

    static AfterStreams of(BoundPlan bound, RunIdentity run) {
        requireNonNull(bound, "bound is null");
        requireNonNull(run, "run is null");
        return new AfterStreams(bound.bindings(), run, bound.plan().streams().size());
    }

    /** For a stream run on its own (tests, tools): nothing waits for others. */
    static AfterStreams none() {
        return new AfterStreams(Map.of(), null, Integer.MAX_VALUE);
    }

    /** The marks {@code stream} loads with. */
    void uses(String stream, LoadMarks marks) {
        used.put(requireNonNull(stream, "stream is null"), requireNonNull(marks, "marks is null"));
    }

    /**
     * A stream's load is finished: when it is the run's last, every target's after-streams work runs now, on this
     * stream's thread; its failure is this stream's.
     */
    void loadFinished() throws ConnectorException {
        synchronized (this) {
            loading--;
            if (loading != 0) {
                return;
            }
        }
        for (Map.Entry<String, StreamBinding> target : everyTarget.entrySet()) {
            LoadMarks marks = used.get(target.getKey());
            if (marks == null) {
                // A stream this process did not load (a resume skipped it as done): its marks are in the ledger.
                if (target.getValue().ledger().isEmpty()) {
                    continue;
                }
                marks = target.getValue().ledger().get().loadMarks(new StreamKey(run.runId(), target.getKey()),
                        run.specName());
            }
            target.getValue().target().finishAfterStreams(marks);
        }
    }
}
