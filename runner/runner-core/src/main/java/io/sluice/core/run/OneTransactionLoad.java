package io.sluice.core.run;

import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.LoadedRowsCheck;
import io.sluice.spi.write.ReplacingLoads;
import io.sluice.spi.write.ReplacingTransaction;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The whole stream in one target transaction that empties the target first, written by one worker. Nothing is
 * visible until the last partition is in, so partitions are reported done only after the commit, and a transient
 * failure retries the stream from the truncation: that redoes at most one attempt's work and never copies a row twice.
 */
final class OneTransactionLoad implements Runnable {
    private final StreamWork work;
    private final SourceSession session;
    /** Looks at the loaded rows before the commit ({@code verify: compare}). */
    private final LoadedRowsCheck check;

    OneTransactionLoad(StreamWork work, SourceSession session, LoadedRowsCheck check) {
        this.check = requireNonNull(check, "check is null");
        this.work = requireNonNull(work, "work is null");
        this.session = requireNonNull(session, "session is null");
    }

    @Override
    public void run() {
        Attempt body = new Attempt();
        PartitionAttempts.Outcome<List<PartitionReport>> outcome = work.attempts.run(body);
        work.progress.transactionEnded();
        switch (outcome) {
            case PartitionAttempts.Done<List<PartitionReport>> d -> committed(d.value());
            case PartitionAttempts.CommittedDespite<List<PartitionReport>> c -> committed(body.copied);
            case PartitionAttempts.Failed<List<PartitionReport>> f -> f.failedOn().ifPresent(failed -> rolledBack(
                    body.copied, failed, PartitionReport.State.FAILED, f.attempts(), body.bytes[0],
                    f.error().getMessage()));
            case PartitionAttempts.Cancelled<List<PartitionReport>> c -> c.failedOn().ifPresent(failed -> rolledBack(
                    body.copied, failed, PartitionReport.State.CANCELLED, c.attempts(), body.bytes[0],
                    work.stoppedWhy()));
            case PartitionAttempts.Lost<List<PartitionReport>> l -> // a joined run never loads in one transaction
                    l.failedOn().ifPresent(failed -> rolledBack(body.copied, failed, PartitionReport.State.CANCELLED,
                            l.attempts(), body.bytes[0], l.why()));
        }
    }

    /** One attempt at the whole load; keeps what the last attempt copied for the reports. */
    private final class Attempt implements PartitionAttempts.Body<List<PartitionReport>> {
        private final Instant firstStart = Instant.now();
        private final long[] bytes = {0};
        private List<PartitionReport> copied = new ArrayList<>();
        private PartitionPlan current;
        private boolean committing;

        @Override
        public List<PartitionReport> run(int attempt) throws ConnectorException {
            work.rolledBack(copied); // an earlier attempt's partitions set nothing aside after all
            copied = new ArrayList<>();
            current = null;
            committing = false;
            work.progress.transactionEnded(); // a failed attempt's rows were rolled back
            List<PartitionPlan> partitions = work.plan.partitions();
            try (PartitionReaders readers = session.openReaders(work.binding.projection());
                 ReplacingTransaction transaction = replacing().open(work.plan.targetColumns(),
                         work.plan.projection().format(), work.ledger.truncatingFirst(), work.plan.estimatedBytes())) {
                for (PartitionPlan partition : partitions) {
                    current = partition;
                    long started = System.nanoTime();
                    bytes[0] = 0;
                    work.listener.partitionStarted(work.plan, partition, attempt);
                    StreamWork.Copied counts = work.copyOnce(readers, transaction, partition, bytes, attempt,
                            firstStart);
                    copied.add(work.report(partition, counts, bytes[0], attempt, started));
                    work.progress.partitionCopied(counts.written());
                }
                current = null;
                committing = true;
                transaction.commit(check);
            }
            return copied;
        }

        /** The partition it was on, or the last one when the commit failed (it names the stream's outcome). */
        @Override
        public Optional<PartitionPlan> failedOn() {
            if (current != null) {
                return Optional.of(current);
            }
            List<PartitionPlan> partitions = work.plan.partitions();
            return committing && !partitions.isEmpty() ? Optional.of(partitions.getLast()) : Optional.empty();
        }

        @Override
        public Optional<PartitionPlan> mayHaveCommitted() {
            List<PartitionPlan> partitions = work.plan.partitions();
            return committing && current == null && !partitions.isEmpty()
                    ? Optional.of(partitions.getLast()) : Optional.empty();
        }
    }

    /** The target's one-transaction load, which the plan chose only for a target that declared it. */
    private ReplacingLoads replacing() throws ConnectorException {
        return work.binding.load().replacingLoads().orElseThrow(() -> new ConnectorException(ErrorKind.FAILED,
                SpiCode.SPI004, work.binding.target().describe() + " cannot load in one transaction",
                "report this as a bug: the runner asks only targets that say they can"));
    }

    private void committed(List<PartitionReport> copied) {
        for (PartitionReport report : copied) {
            work.progress.partitionCommitted(report.rowsWritten());
            work.finished(report);
        }
    }

    /** Reports the partitions a rolled-back transaction had copied as cancelled, then the one that ended it. */
    private void rolledBack(List<PartitionReport> copied, PartitionPlan last, PartitionReport.State state,
                            int attempt, long bytes, String why) {
        for (PartitionReport done : copied) {
            if (done.index() == last.index()) {
                continue;
            }
            work.finished(new PartitionReport(done.index(), done.id(), done.predicate(),
                    PartitionReport.State.CANCELLED, 0, 0, done.bytes(), attempt, done.duration(),
                    Optional.of("rolled back with the stream's transaction (partition " + (last.index() + 1)
                            + " did not complete)")));
        }
        work.finished(work.report(last, state, 0, 0, bytes, attempt, System.nanoTime(), why));
    }
}
