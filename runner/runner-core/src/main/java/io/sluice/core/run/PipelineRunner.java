package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.spi.Redactor;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Runs a plan's streams one after another. A failed stream ends the run: the streams after it are reported as
 * skipped. {@link #interrupt()} may be called from a signal handler at any time.
 */
public final class PipelineRunner {
    private final RunProgress progress = new RunProgress();
    private volatile StreamExecutor current;
    private volatile boolean interrupted;

    public RunReport run(BoundPlan bound, String runId, RunListener listener) {
        return run(bound, runId, listener, Optional.empty());
    }

    /** {@link #run}, as one of several processes of a joined run when {@code join} is given. */
    public RunReport run(BoundPlan bound, String runId, RunListener listener, Optional<Join> join) {
        requireNonNull(bound, "bound is null");
        requireNonNull(join, "join is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(listener, "listener is null");
        PipelinePlan plan = bound.plan();
        Instant started = Instant.now();
        RunIdentity identity = new RunIdentity(runId, plan.spec().name(), plan.spec().checksum(),
                new Redactor(plan.spec().secrets()), join);
        listener.runStarted(plan, runId);
        List<StreamReport> reports = new ArrayList<>();
        SluiceException error = null;
        for (StreamPlan stream : plan.streams()) {
            if (error != null || interrupted) {
                reports.add(new StreamReport(stream.name(), StreamReport.State.SKIPPED, stream.degree(), 0, 0,
                        Duration.ZERO, List.of(), stream.partitions().size(), 0, Optional.empty(),
                        Verification.notRequested(), 0));
                continue;
            }
            StreamExecutor executor = new StreamExecutor(stream, bound.binding(stream), identity, listener, progress);
            current = executor;
            if (interrupted) {
                executor.interrupt();
            }
            StreamReport report = executor.execute();
            current = null;
            reports.add(report);
            if (report.state() != StreamReport.State.DONE) {
                error = report.error().orElse(null);
            }
        }
        RunReport report = new RunReport(runId, plan.spec().name(), plan.spec().checksum(), started, Instant.now(),
                reports, interrupted, Optional.ofNullable(error));
        listener.runFinished(report);
        return report;
    }

    /** Cancels in-flight copies (rolled back) and skips what is left. */
    public void interrupt() {
        interrupted = true;
        StreamExecutor executor = current;
        if (executor != null) {
            executor.interrupt();
        }
    }

    public RunProgress progress() {
        return progress;
    }
}
