package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.ledger.StreamDefinition;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.Digest;
import io.sluice.spi.LoadMode;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionDone;
import io.sluice.spi.ledger.RunLedger;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.PartitionReader;
import io.sluice.spi.PartitionReaders;
import io.sluice.spi.PartitionWriter;
import io.sluice.spi.PartitionWriters;
import io.sluice.spi.ReplacingTransaction;
import io.sluice.spi.Source;
import io.sluice.spi.SourceSession;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Runs one stream: prepares the target, opens the source session (snapshot), and lets {@code degree} workers pull
 * partitions from a queue in plan order (largest first). Each partition is one reader piped into one writer in its
 * own target transaction, except in a truncate load by one worker, which writes them all in one. The first permanent
 * failure stops the other workers promptly; their cancellations are not reported as errors of their own.
 */
final class StreamExecutor {
    private final StreamPlan plan;
    private final RunIdentity run;
    private final RunListener listener;
    private final RunProgress progress;
    private final Backoff backoff;
    private final Queue<PartitionPlan> queue;
    private final List<PartitionReport> reports = Collections.synchronizedList(new ArrayList<>());
    private final Set<PartitionReader> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicReference<SluiceException> firstError = new AtomicReference<>();
    private final AtomicInteger retries = new AtomicInteger();
    private volatile boolean stopping;
    private volatile boolean interrupted;

    StreamExecutor(StreamPlan plan, RunIdentity run, RunListener listener, RunProgress progress) {
        this.plan = requireNonNull(plan, "plan is null");
        this.run = requireNonNull(run, "run is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.progress = requireNonNull(progress, "progress is null");
        this.backoff = new Backoff(plan.spec().retry());
        this.queue = new ConcurrentLinkedQueue<>(plan.partitions());
    }

    StreamReport execute() {
        long started = System.nanoTime();
        progress.startStream(plan.name(), plan.partitions().size(), plan.estimatedBytes());
        Verification verification = Verification.notRequested();
        Verifier verifier = new Verifier(plan);
        try {
            if (plan.ledger().isPresent()) {
                plan.ledger().get().ensureReady();
            }
            try (SourceSession session = plan.source().openSession(plan.spec().consistency(), plan.degree())) {
                if (plan.ledger().isPresent()) {
                    recordStart(plan.ledger().get(), session.snapshotMode());
                }
                prepareTarget();
                Optional<Digest> baseline = verifier.baseline();
                listener.streamStarted(plan, session.snapshotMode());
                runWorkers(session);
                if (verifier.requested() && firstError.get() == null && !interrupted) {
                    verification = verifier.verify(session, baseline);
                    if (verification.status() == Verification.Status.FAILED) {
                        fail(new SluiceException(ErrorKind.VERIFICATION, "VERIFY001", where() + ": verify "
                                + plan.spec().verify().name().toLowerCase(java.util.Locale.ROOT) + " found "
                                + String.join("; ", verification.mismatches()),
                                "the target does not hold what the source held in the run's snapshot: look for "
                                        + "writers or triggers on the target table, then run again"));
                    }
                }
            }
        } catch (ConnectorException e) {
            fail(SluiceException.from(e, where()));
        } catch (SluiceException e) {
            fail(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupt();
        }
        List<PartitionReport> done = new ArrayList<>(reports);
        done.sort((a, b) -> Integer.compare(a.index(), b.index()));
        long rows = done.stream().filter(r -> r.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::rowsWritten).sum();
        long bytes = done.stream().filter(r -> r.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::bytes).sum();
        StreamReport.State state = interrupted ? StreamReport.State.INTERRUPTED
                : firstError.get() != null ? StreamReport.State.FAILED : StreamReport.State.DONE;
        recordFinish(state, rows);
        StreamReport report = new StreamReport(plan.name(), state, plan.degree(), rows, bytes,
                Duration.ofNanos(System.nanoTime() - started), done, plan.partitions().size(), retries.get(),
                Optional.ofNullable(firstError.get()), verification,
                plan.allPartitions().size() - plan.partitions().size());
        listener.streamFinished(plan, report);
        return report;
    }

    private void recordStart(RunLedger ledger, String snapshotMode) throws ConnectorException {
        ledger.startStream(LedgerStream.starting(run.runId(), run.specName(), run.specChecksum(), plan.name(),
                StreamDefinition.of(plan.spec(), run.redactor()), snapshotMode));
        List<LedgerPartition> planned = new ArrayList<>();
        for (PartitionPlan partition : plan.allPartitions()) {
            planned.add(new LedgerPartition(partition.index(), partition.partition().id(),
                    run.redactor().redact(partition.partition().predicate()),
                    partition.partition().checkpoint().orElse(""), LedgerPartition.State.PLANNED, 0, 0, 0));
        }
        ledger.recordPlan(run.runId(), plan.name(), planned);
    }

    /**
     * Truncate happens once per run: with a ledger it is recorded with the truncation, so a resume skips it. A load
     * in one transaction truncates in that transaction instead.
     */
    private void prepareTarget() throws ConnectorException {
        if (plan.oneTransaction()) {
            return;
        }
        if (plan.spec().loadMode() == LoadMode.TRUNCATE && plan.ledger().isPresent()) {
            plan.ledger().get().truncateOnce(run.runId(), plan.name());
        } else {
            plan.target().prepare(plan.spec().loadMode());
        }
    }

    private void recordFinish(StreamReport.State state, long rows) {
        if (plan.ledger().isEmpty()) {
            return;
        }
        LedgerStream.State recorded = switch (state) {
            case DONE -> LedgerStream.State.DONE;
            case INTERRUPTED -> LedgerStream.State.INTERRUPTED;
            default -> LedgerStream.State.FAILED;
        };
        try {
            plan.ledger().get().finishStream(run.runId(), plan.name(), recorded, rows,
                    Optional.ofNullable(firstError.get()).map(e -> run.redactor().redact(e.getMessage())));
        } catch (ConnectorException e) {
            listener.ledgerProblem(plan, "could not record the end of the stream in the ledger: " + e.getMessage());
        }
    }

    private void recordAttempt(PartitionPlan partition, int attempt, Instant startedAt, AttemptRecord.Outcome outcome,
                               SluiceException error) {
        if (plan.ledger().isEmpty()) {
            return;
        }
        try {
            plan.ledger().get().recordAttempt(new AttemptRecord(run.runId(), plan.name(), partition.partition().id(),
                    attempt, startedAt, Instant.now(), outcome, Optional.ofNullable(error).map(SluiceException::code),
                    Optional.ofNullable(error).map(e -> run.redactor().redact(e.getMessage()))));
        } catch (ConnectorException e) {
            listener.ledgerProblem(plan, "could not record attempt " + attempt + " of partition "
                    + partition.partition().id() + " in the ledger: " + e.getMessage());
        }
    }

    /** Stops the stream from outside (Ctrl-C, SIGTERM): in-flight copies are cancelled and rolled back. */
    void interrupt() {
        interrupted = true;
        stop();
    }

    private void runWorkers(SourceSession session) throws InterruptedException {
        int workers = plan.oneTransaction() ? 1 : Math.min(plan.degree(), Math.max(1, plan.partitions().size()));
        ThreadFactory threads = plan.source().readerThreads() == Source.ThreadModel.PLATFORM
                ? Thread.ofPlatform().name("sluice-" + plan.name() + "-", 0).daemon().factory()
                : Thread.ofVirtual().name("sluice-" + plan.name() + "-", 0).factory();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Thread thread = threads.newThread(plan.oneTransaction() ? () -> workInOneTransaction(session)
                    : () -> work(session));
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
    }

    /** A worker keeps its readers and writers (and so its connections) from one partition to the next. */
    private void work(SourceSession session) {
        try (PartitionReaders readers = session.openReaders(plan.projection());
             PartitionWriters writers = plan.target().openWriters(plan.targetColumns(), plan.projection().format())) {
            PartitionPlan partition;
            while (!stopping && (partition = queue.poll()) != null) {
                reports.add(copyWithRetries(readers, writers, partition));
            }
        }
    }

    /**
     * The whole stream in one target transaction that empties the target first. Nothing is visible until the last
     * partition is in, so partitions are reported done only after the commit, and a transient failure retries the
     * stream from the truncation: that redoes at most one attempt's work and never copies a row twice.
     */
    private void workInOneTransaction(SourceSession session) {
        Instant firstStart = Instant.now();
        Optional<StreamKey> ledgerKey = plan.ledger().map(l -> new StreamKey(run.runId(), plan.name()));
        int attempt = 0;
        while (!stopping) {
            attempt++;
            Instant attemptStart = Instant.now();
            List<PartitionReport> copied = new ArrayList<>();
            PartitionPlan current = null;
            long[] bytes = {0};
            try (PartitionReaders readers = session.openReaders(plan.projection());
                 ReplacingTransaction transaction = plan.target().openReplacingTransaction(plan.targetColumns(),
                         plan.projection().format(), ledgerKey)) {
                for (PartitionPlan partition : plan.partitions()) {
                    current = partition;
                    long started = System.nanoTime();
                    bytes[0] = 0;
                    listener.partitionStarted(plan, partition, attempt);
                    long[] counts = copyOnce(readers, transaction, partition, bytes, attempt, firstStart);
                    copied.add(report(partition, PartitionReport.State.DONE, counts[0], counts[1], bytes[0], attempt,
                            started, null));
                    progress.partitionCopied(counts[1]);
                }
                current = null;
                transaction.commit();
            } catch (ConnectorException e) {
                progress.transactionEnded();
                SluiceException error = SluiceException.from(e, current != null ? where(current, attempt)
                        : where() + ", committing the stream's transaction" + (attempt > 1 ? ", attempt " + attempt
                        : ""));
                if (current == null && plan.partitions().isEmpty()) {
                    fail(error); // nothing was copied: the truncation alone failed to commit
                    return;
                }
                PartitionPlan failed = current != null ? current : plan.partitions().getLast();
                if (stopping) {
                    recordAttempt(failed, attempt, attemptStart, AttemptRecord.Outcome.CANCELLED, null);
                    rolledBack(copied, failed, PartitionReport.State.CANCELLED, attempt, bytes[0], stoppedWhy());
                    return;
                }
                if (current == null && committedDespite(failed).isPresent()) {
                    finishCommitted(copied); // the commit reached the server but its answer was lost
                    return;
                }
                if (e.kind().isRetryable() && attempt < plan.spec().retry().maxAttempts()) {
                    if (!waitToRetry(failed, attempt, attemptStart, error)) {
                        rolledBack(copied, failed, PartitionReport.State.CANCELLED, attempt, bytes[0], stoppedWhy());
                        return;
                    }
                    continue;
                }
                failInOneTransaction(copied, failed, attempt, attemptStart, error, bytes[0]);
                return;
            } catch (SluiceException e) {
                progress.transactionEnded();
                if (current == null) {
                    fail(e);
                    return;
                }
                failInOneTransaction(copied, current, attempt, attemptStart, e, bytes[0]);
                return;
            }
            finishCommitted(copied);
            return;
        }
    }

    private String stoppedWhy() {
        return "cancelled: " + (interrupted ? "the run was interrupted" : "the stream was stopped");
    }

    private void finishCommitted(List<PartitionReport> copied) {
        progress.transactionEnded();
        for (PartitionReport report : copied) {
            progress.partitionCommitted(report.rowsWritten());
            reports.add(report);
            listener.partitionFinished(plan, report);
        }
    }

    private void failInOneTransaction(List<PartitionReport> copied, PartitionPlan failed, int attempt,
                                      Instant attemptStart, SluiceException error, long bytes) {
        fail(error);
        recordAttempt(failed, attempt, attemptStart, AttemptRecord.Outcome.FAILED, error);
        rolledBack(copied, failed, PartitionReport.State.FAILED, attempt, bytes, error.getMessage());
    }

    /** Reports the partitions a rolled-back transaction had copied as cancelled, then the one that ended it. */
    private void rolledBack(List<PartitionReport> copied, PartitionPlan last, PartitionReport.State state,
                            int attempt, long bytes, String why) {
        for (PartitionReport done : copied) {
            if (done.index() == last.index()) {
                continue;
            }
            PartitionReport undone = new PartitionReport(done.index(), done.id(), done.predicate(),
                    PartitionReport.State.CANCELLED, 0, 0, done.bytes(), attempt, done.duration(),
                    Optional.of("rolled back with the stream's transaction (partition " + (last.index() + 1)
                            + " did not complete)"));
            reports.add(undone);
            listener.partitionFinished(plan, undone);
        }
        PartitionReport report = report(last, state, 0, 0, bytes, attempt, System.nanoTime(), why);
        reports.add(report);
        listener.partitionFinished(plan, report);
    }

    private PartitionReport copyWithRetries(PartitionReaders readers, PartitionWriters writers,
                                            PartitionPlan partition) {
        long started = System.nanoTime();
        Instant firstStart = Instant.now();
        int attempt = 0;
        while (true) {
            attempt++;
            Instant attemptStart = Instant.now();
            listener.partitionStarted(plan, partition, attempt);
            long[] bytes = {0};
            try {
                long[] counts = copyOnce(readers, writers, partition, bytes, attempt, firstStart);
                progress.partitionCommitted(counts[1]);
                PartitionReport report = report(partition, PartitionReport.State.DONE, counts[0], counts[1],
                        bytes[0], attempt, started, null);
                listener.partitionFinished(plan, report);
                return report;
            } catch (ConnectorException e) {
                SluiceException error = SluiceException.from(e, where(partition, attempt));
                if (stopping) {
                    recordAttempt(partition, attempt, attemptStart, AttemptRecord.Outcome.CANCELLED, null);
                    return finishCancelled(partition, attempt, started, bytes[0]);
                }
                if (e.kind().isRetryable() && attempt < plan.spec().retry().maxAttempts()) {
                    Optional<LedgerPartition> committed = committedDespite(partition);
                    if (committed.isPresent()) {
                        // The commit reached the server but its answer was lost: done, and must not be copied again.
                        progress.partitionCommitted(committed.get().rows());
                        PartitionReport report = report(partition, PartitionReport.State.DONE,
                                committed.get().rows(), committed.get().rows(), committed.get().bytes(), attempt,
                                started, null);
                        listener.partitionFinished(plan, report);
                        return report;
                    }
                    if (!waitToRetry(partition, attempt, attemptStart, error)) {
                        return finishCancelled(partition, attempt, started, bytes[0]);
                    }
                    continue;
                }
                fail(error);
                recordAttempt(partition, attempt, attemptStart, AttemptRecord.Outcome.FAILED, error);
                PartitionReport report = report(partition, PartitionReport.State.FAILED, 0, 0, bytes[0], attempt,
                        started, error.getMessage());
                listener.partitionFinished(plan, report);
                return report;
            } catch (SluiceException e) {
                fail(e);
                recordAttempt(partition, attempt, attemptStart, AttemptRecord.Outcome.FAILED, e);
                PartitionReport report = report(partition, PartitionReport.State.FAILED, 0, 0, bytes[0], attempt,
                        started, e.getMessage());
                listener.partitionFinished(plan, report);
                return report;
            }
        }
    }

    /** One attempt: returns {rowsRead, rowsWritten}. The writer's transaction commits only if the counts agree. */
    private long[] copyOnce(PartitionReaders readers, PartitionWriters writers, PartitionPlan partition,
                            long[] bytes, int attempt, Instant firstStart) throws ConnectorException {
        PartitionWriter writer = writers.open();
        PartitionReader reader = null;
        boolean committed = false;
        try {
            reader = readers.open(partition.partition());
            inFlight.add(reader);
            if (stopping) {
                throw new ConnectorException(ErrorKind.FAILED, "RUN010", "stopped before it started", null);
            }
            long read = reader.transferTo((buffer, offset, length) -> {
                writer.write(buffer, offset, length);
                bytes[0] += length;
                progress.addBytes(length);
            });
            long written = writer.finish();
            if (read != written) {
                throw new SluiceException(ErrorKind.VERIFICATION, "RUN020", where(partition, 1) + ": read "
                        + read + " rows from the source but the target took " + written
                        + "; the partition was rolled back", "report this as a bug with the plan (sluice plan)");
            }
            if (plan.ledger().isPresent()) {
                writer.commit(new PartitionDone(run.runId(), plan.name(), partition.partition().id(), written,
                        bytes[0], attempt, firstStart));
            } else {
                writer.commit();
            }
            committed = true;
            return new long[] {read, written};
        } finally {
            if (reader != null) {
                inFlight.remove(reader);
                reader.close();
            }
            if (!committed) {
                writer.abort();
            }
            writer.close();
        }
    }

    /** The partition's ledger row when the ledger says it is done, e.g. after a commit whose answer was lost. */
    private Optional<LedgerPartition> committedDespite(PartitionPlan partition) {
        if (plan.ledger().isEmpty()) {
            return Optional.empty();
        }
        try {
            return plan.ledger().get().partitions(run.runId(), plan.name()).stream()
                    .filter(p -> p.partitionId().equals(partition.partition().id())
                            && p.state() == LedgerPartition.State.DONE)
                    .findFirst();
        } catch (ConnectorException e) {
            return Optional.empty(); // the ledger is unreachable too; the retry's commit will refuse a duplicate
        }
    }

    /** Records a retried attempt and waits out its back-off; false when the stream stopped meanwhile. */
    private boolean waitToRetry(PartitionPlan partition, int attempt, Instant attemptStart, SluiceException error) {
        Duration wait = backoff.before(attempt + 1);
        retries.incrementAndGet();
        recordAttempt(partition, attempt, attemptStart, AttemptRecord.Outcome.RETRIED, error);
        listener.partitionRetrying(plan, partition, attempt, error, wait);
        return pause(wait);
    }

    private boolean pause(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (!stopping) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private void fail(SluiceException error) {
        if (firstError.compareAndSet(null, error)) {
            stop();
        }
    }

    private void stop() {
        stopping = true;
        for (PartitionReader reader : inFlight) {
            reader.cancel();
        }
    }

    private PartitionReport finishCancelled(PartitionPlan partition, int attempt, long started, long bytes) {
        PartitionReport report = report(partition, PartitionReport.State.CANCELLED, 0, 0, bytes, attempt, started,
                "cancelled: " + (interrupted ? "the run was interrupted" : "another partition failed"));
        listener.partitionFinished(plan, report);
        return report;
    }

    private PartitionReport report(PartitionPlan partition, PartitionReport.State state, long read, long written,
                                   long bytes, int attempts, long startedNanos, String error) {
        return new PartitionReport(partition.index(), partition.partition().id(), partition.partition().predicate(),
                state, read, written, bytes, attempts, Duration.ofNanos(System.nanoTime() - startedNanos),
                Optional.ofNullable(error));
    }

    private String where() {
        return "stream '" + plan.name() + "'";
    }

    private String where(PartitionPlan partition, int attempt) {
        return where() + ", partition " + (partition.index() + 1) + "/" + plan.allPartitions().size()
                + " (" + partition.partition().predicate() + ")" + (attempt > 1 ? ", attempt " + attempt : "");
    }
}
