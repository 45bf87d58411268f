package io.sluice.core.run.context;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;

import java.time.Duration;

/**
 * Hears what a run does, for logs, progress and metrics at the edge. Called from worker threads concurrently:
 * implementations must be thread-safe and quick. All methods default to doing nothing.
 */
public interface RunListener {
    RunListener NONE = new RunListener() { };

    /** One listener that tells each of these, in order. */
    static RunListener all(java.util.List<RunListener> listeners) {
        java.util.List<RunListener> copy = java.util.List.copyOf(listeners);
        return new RunListener() {
            @Override
            public void runStarted(PipelinePlan plan, String runId) {
                copy.forEach(l -> l.runStarted(plan, runId));
            }

            @Override
            public void changesStarted(String feed, String mode, String from, java.util.Optional<String> upTo) {
                copy.forEach(l -> l.changesStarted(feed, mode, from, upTo));
            }

            @Override
            public void changesApplied(String feed, ChangeBatch batch,
                                       ChangeApplier.Applied applied, long bytesBehind) {
                copy.forEach(l -> l.changesApplied(feed, batch, applied, bytesBehind));
            }

            @Override
            public void changesRetrying(String feed, SluiceException cause, int failures, int maxAttempts,
                                        Duration backoff) {
                copy.forEach(l -> l.changesRetrying(feed, cause, failures, maxAttempts, backoff));
            }

            @Override
            public void changesFinished(ChangeReport report) {
                copy.forEach(l -> l.changesFinished(report));
            }

            @Override
            public void streamStarted(StreamPlan stream, String snapshotMode) {
                copy.forEach(l -> l.streamStarted(stream, snapshotMode));
            }

            @Override
            public void partitionStarted(StreamPlan stream, PartitionPlan partition, int attempt) {
                copy.forEach(l -> l.partitionStarted(stream, partition, attempt));
            }

            @Override
            public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt,
                                          SluiceException cause, Duration backoff) {
                copy.forEach(l -> l.partitionRetrying(stream, partition, attempt, cause, backoff));
            }

            @Override
            public void partitionFinished(StreamPlan stream, PartitionReport report) {
                copy.forEach(l -> l.partitionFinished(stream, report));
            }

            @Override
            public void streamFinished(StreamPlan stream, StreamReport report) {
                copy.forEach(l -> l.streamFinished(stream, report));
            }

            @Override
            public void ledgerProblem(StreamPlan stream, String message) {
                copy.forEach(l -> l.ledgerProblem(stream, message));
            }

            @Override
            public void runHookRan(String phase, String connection, int statements) {
                copy.forEach(l -> l.runHookRan(phase, connection, statements));
            }

            @Override
            public void hookRan(StreamPlan stream, String phase, int statements) {
                copy.forEach(l -> l.hookRan(stream, phase, statements));
            }

            @Override
            public void lockWait(StreamPlan stream, String what, boolean waiting) {
                copy.forEach(l -> l.lockWait(stream, what, waiting));
            }

            @Override
            public void runFinished(RunReport report) {
                copy.forEach(l -> l.runFinished(report));
            }
        };
    }

    default void runStarted(PipelinePlan plan, String runId) {
    }

    default void streamStarted(StreamPlan stream, String snapshotMode) {
    }

    default void partitionStarted(StreamPlan stream, PartitionPlan partition, int attempt) {
    }

    default void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                   Duration backoff) {
    }

    default void partitionFinished(StreamPlan stream, PartitionReport report) {
    }

    default void streamFinished(StreamPlan stream, StreamReport report) {
    }

    /** A stream's {@code before:} or {@code after:} hook ran its {@code statements} on the target (once per run). */
    default void hookRan(StreamPlan stream, String phase, int statements) {
    }

    /** A top-level {@code before:} or {@code after:} hook ran its {@code statements} on {@code connection}. */
    default void runHookRan(String phase, String connection, int statements) {
    }

    /** The ledger could not record something; the copy itself went on. */
    default void ledgerProblem(StreamPlan stream, String message) {
    }

    /**
     * A connector waits for a lock someone else holds ({@code waiting} true), or that wait ended; {@code what} names
     * the lock and its holder, e.g. {@code lock on "public"."t" (ROW EXCLUSIVE), held by pid 4242 ...}.
     */
    default void lockWait(StreamPlan stream, String what, boolean waiting) {
    }

    /**
     * A change feed begins applying ({@code mode}: after the copy that started it, or only changes), from
     * {@code from} up to {@code upTo} (empty: until stopped, {@code --follow}).
     */
    default void changesStarted(String feed, String mode, String from, java.util.Optional<String> upTo) {
    }

    /** A batch of changes committed; {@code bytesBehind}: how far the source is ahead now. */
    default void changesApplied(String feed, ChangeBatch batch, ChangeApplier.Applied applied,
                                long bytesBehind) {
    }

    /** A change feed stopped applying (caught up, stopped, or failed). */
    /**
     * A following run's feed failed passingly (a source or target restart, a connection cut) for the
     * {@code failures}-th time in a row; it opens the feed again at the ledger's position after {@code backoff}.
     */
    default void changesRetrying(String feed, SluiceException cause, int failures, int maxAttempts,
                                 Duration backoff) {
    }

    default void changesFinished(ChangeReport report) {
    }

    default void runFinished(RunReport report) {
    }
}
