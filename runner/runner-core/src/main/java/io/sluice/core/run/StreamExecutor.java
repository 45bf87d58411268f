package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.ledger.StreamDefinition;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.Digest;
import io.sluice.spi.LoadMode;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionDone;
import io.sluice.spi.ledger.RunLedger;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.LockWaits;
import io.sluice.spi.TargetClaim;
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
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Runs one stream: prepares the target, opens the source session (snapshot), and lets {@code degree} workers pull
 * partitions from a queue in plan order (largest first). Each partition is one reader piped into one writer in its
 * own target transaction, except in a truncate load by one worker, which writes them all in one. Both paths go through
 * one attempt/retry/cancel routine ({@link PartitionAttempts}). The first permanent failure stops the other workers
 * promptly; their cancellations are not reported as errors of their own.
 *
 * <p>Fail-safe by construction: no throwable ends a worker or the stream unreported (what no connector declared
 * becomes RUN030), and a stream is DONE only when every partition it set out to copy has a DONE report (RUN040
 * otherwise), whatever path it took.
 */
final class StreamExecutor implements PartitionAttempts.StreamControl {
    private final StreamPlan plan;
    private final RunIdentity run;
    private final RunListener listener;
    private final RunProgress progress;
    private final PartitionAttempts attempts;
    private final Queue<PartitionPlan> queue;
    private final List<PartitionReport> reports = Collections.synchronizedList(new ArrayList<>());
    private final Set<PartitionReader> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicReference<SluiceException> firstError = new AtomicReference<>();
    private volatile boolean stopping;
    private volatile boolean interrupted;

    StreamExecutor(StreamPlan plan, RunIdentity run, RunListener listener, RunProgress progress) {
        this.plan = requireNonNull(plan, "plan is null");
        this.run = requireNonNull(run, "run is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.progress = requireNonNull(progress, "progress is null");
        this.attempts = new PartitionAttempts(plan, run, listener, this);
        this.queue = new ConcurrentLinkedQueue<>(plan.partitions());
    }

    StreamReport execute() {
        long started = System.nanoTime();
        progress.startStream(plan.name(), plan.partitions().size(), plan.estimatedBytes());
        Verification verification = Verification.notRequested();
        Verifier verifier = new Verifier(plan);
        try {
            LockWaits waits = lockWaits();
            plan.source().waitForLocks(waits);
            plan.target().waitForLocks(waits);
            if (plan.ledger().isPresent()) {
                plan.ledger().get().ensureReady();
            }
            // The claim first: a second run of this target waits here, before it records, truncates or reads anything.
            try (TargetClaim claim = plan.target().claim(run.runId());
                 SourceSession session = plan.source().openSession(plan.spec().consistency())) {
                if (plan.ledger().isPresent()) {
                    recordStart(plan.ledger().get(), session.snapshotMode());
                }
                prepareTarget();
                Optional<Digest> baseline = verifier.baseline();
                listener.streamStarted(plan, session.snapshotMode());
                runWorkers(session);
                requireEveryPartitionDone();
                if (verifier.requested() && firstError.get() == null && !interrupted) {
                    verification = verifier.verify(session, baseline);
                    if (verification.status() == Verification.Status.FAILED) {
                        fail(new SluiceException(ErrorKind.VERIFICATION, "VERIFY001", plan.where() + ": verify "
                                + plan.spec().verify().name().toLowerCase(java.util.Locale.ROOT) + " found "
                                + String.join("; ", verification.mismatches()),
                                "the target does not hold what the source held in the run's snapshot: look for "
                                        + "writers or triggers on the target table, then run again"));
                    }
                }
            }
        } catch (ConnectorException e) {
            fail(SluiceException.from(e, plan.where()));
        } catch (SluiceException e) {
            fail(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupt();
        } catch (RuntimeException | Error e) {
            fail(PartitionAttempts.unexpected(e, plan.where()));
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
                Duration.ofNanos(System.nanoTime() - started), done, plan.partitions().size(), attempts.retries(),
                Optional.ofNullable(firstError.get()), verification,
                plan.allPartitions().size() - plan.partitions().size());
        listener.streamFinished(plan, report);
        return report;
    }

    /** The stream's lock-timeout, with each wait shown on the progress line and told to the listener. */
    private LockWaits lockWaits() {
        return LockWaits.of(plan.spec().lockTimeout(), (what, waiting) -> {
            progress.waiting(what, waiting);
            listener.lockWait(plan, what, waiting);
        });
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

    /** Stops the stream from outside (Ctrl-C, SIGTERM): in-flight copies are cancelled and rolled back. */
    void interrupt() {
        interrupted = true;
        stop();
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    @Override
    public void fail(SluiceException error) {
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

    private void runWorkers(SourceSession session) throws InterruptedException {
        int workers = plan.oneTransaction() ? 1 : Math.min(plan.degree(), Math.max(1, plan.partitions().size()));
        ThreadFactory threads = plan.source().readerThreads() == Source.ThreadModel.PLATFORM
                ? Thread.ofPlatform().name("sluice-" + plan.name() + "-", 0).daemon().factory()
                : Thread.ofVirtual().name("sluice-" + plan.name() + "-", 0).factory();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Runnable work = plan.oneTransaction() ? () -> workInOneTransaction(session) : () -> work(session);
            Thread thread = threads.newThread(() -> failSafe(work));
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
    }

    /**
     * The worker boundary: whatever escapes a worker (opening or closing its readers and writers, a bug between two
     * partitions) fails the stream with its cause instead of ending the thread quietly.
     */
    private void failSafe(Runnable work) {
        try {
            work.run();
        } catch (Throwable e) {
            fail(PartitionAttempts.unexpected(e, plan.where() + ", worker " + Thread.currentThread().getName()));
        }
    }

    /**
     * The invariant behind "done": every partition this run set out to copy has a DONE report. A worker that ended
     * early without a failure, or a report that went missing, fails the stream here instead of passing for done.
     */
    private void requireEveryPartitionDone() {
        if (firstError.get() != null || interrupted) {
            return;
        }
        Set<Integer> done = new HashSet<>();
        synchronized (reports) {
            for (PartitionReport report : reports) {
                if (report.state() == PartitionReport.State.DONE) {
                    done.add(report.index());
                }
            }
        }
        List<PartitionPlan> missing = plan.partitions().stream().filter(p -> !done.contains(p.index())).toList();
        if (missing.isEmpty()) {
            return;
        }
        String named = missing.stream().limit(5).map(p -> (p.index() + 1) + " (" + p.partition().predicate() + ")")
                .collect(Collectors.joining(", ")) + (missing.size() > 5 ? ", ..." : "");
        fail(new SluiceException(ErrorKind.FAILED, "RUN040", plan.where() + ": " + missing.size() + " of "
                + plan.partitions().size() + " partitions to copy ended without being done: " + named,
                "this is a bug in Sluice or the connector: report it with the plan (sluice plan) and the log; the "
                        + "run is resumable, sluice run --resume copies what is not done"));
    }

    /** A worker keeps its readers and writers (and so its connections) from one partition to the next. */
    private void work(SourceSession session) {
        try (PartitionReaders readers = session.openReaders(plan.projection());
             PartitionWriters writers = plan.target().openWriters(plan.targetColumns(), plan.projection().format())) {
            PartitionPlan partition;
            while (!stopping && (partition = queue.poll()) != null) {
                reports.add(copyPartition(readers, writers, partition));
            }
        }
    }

    private PartitionReport copyPartition(PartitionReaders readers, PartitionWriters writers,
                                          PartitionPlan partition) {
        long started = System.nanoTime();
        Instant firstStart = Instant.now();
        long[] bytes = {0};
        PartitionAttempts.Outcome<long[]> outcome = attempts.run(new PartitionAttempts.Body<>() {
            @Override
            public long[] run(int attempt) throws ConnectorException {
                listener.partitionStarted(plan, partition, attempt);
                bytes[0] = 0;
                return copyOnce(readers, writers, partition, bytes, attempt, firstStart);
            }

            @Override
            public Optional<PartitionPlan> failedOn() {
                return Optional.of(partition);
            }

            @Override
            public Optional<PartitionPlan> mayHaveCommitted() {
                return Optional.of(partition);
            }
        });
        PartitionReport report = switch (outcome) {
            case PartitionAttempts.Done<long[]> d -> {
                progress.partitionCommitted(d.value()[1]);
                yield report(partition, PartitionReport.State.DONE, d.value()[0], d.value()[1], bytes[0],
                        d.attempts(), started, null);
            }
            case PartitionAttempts.CommittedDespite<long[]> c -> {
                progress.partitionCommitted(c.ledgerRow().rows());
                yield report(partition, PartitionReport.State.DONE, c.ledgerRow().rows(), c.ledgerRow().rows(),
                        c.ledgerRow().bytes(), c.attempts(), started, null);
            }
            case PartitionAttempts.Failed<long[]> f -> report(partition, PartitionReport.State.FAILED, 0, 0,
                    bytes[0], f.attempts(), started, f.error().getMessage());
            case PartitionAttempts.Cancelled<long[]> c -> report(partition, PartitionReport.State.CANCELLED, 0, 0,
                    bytes[0], c.attempts(), started, stoppedWhy());
        };
        listener.partitionFinished(plan, report);
        return report;
    }

    /**
     * The whole stream in one target transaction that empties the target first. Nothing is visible until the last
     * partition is in, so partitions are reported done only after the commit, and a transient failure retries the
     * stream from the truncation: that redoes at most one attempt's work and never copies a row twice.
     */
    private void workInOneTransaction(SourceSession session) {
        Optional<StreamKey> ledgerKey = plan.ledger().map(l -> new StreamKey(run.runId(), plan.name()));
        OneTransactionAttempt body = new OneTransactionAttempt(session, ledgerKey);
        PartitionAttempts.Outcome<List<PartitionReport>> outcome = attempts.run(body);
        progress.transactionEnded();
        switch (outcome) {
            case PartitionAttempts.Done<List<PartitionReport>> d -> finishCommitted(d.value());
            case PartitionAttempts.CommittedDespite<List<PartitionReport>> c -> finishCommitted(body.copied);
            case PartitionAttempts.Failed<List<PartitionReport>> f -> f.failedOn().ifPresent(failed -> rolledBack(
                    body.copied, failed, PartitionReport.State.FAILED, f.attempts(), body.bytes[0],
                    f.error().getMessage()));
            case PartitionAttempts.Cancelled<List<PartitionReport>> c -> c.failedOn().ifPresent(failed -> rolledBack(
                    body.copied, failed, PartitionReport.State.CANCELLED, c.attempts(), body.bytes[0],
                    stoppedWhy()));
        }
    }

    /** One attempt at the whole one-transaction load; keeps what the last attempt copied for the reports. */
    private final class OneTransactionAttempt implements PartitionAttempts.Body<List<PartitionReport>> {
        private final SourceSession session;
        private final Optional<StreamKey> ledgerKey;
        private final Instant firstStart = Instant.now();
        private final long[] bytes = {0};
        private List<PartitionReport> copied = new ArrayList<>();
        private PartitionPlan current;
        private boolean committing;

        OneTransactionAttempt(SourceSession session, Optional<StreamKey> ledgerKey) {
            this.session = session;
            this.ledgerKey = ledgerKey;
        }

        @Override
        public List<PartitionReport> run(int attempt) throws ConnectorException {
            copied = new ArrayList<>();
            current = null;
            committing = false;
            progress.transactionEnded(); // a failed attempt's rows were rolled back
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
                committing = true;
                transaction.commit();
            }
            return copied;
        }

        /** The partition it was on, or the last one when the commit failed (it names the stream's outcome). */
        @Override
        public Optional<PartitionPlan> failedOn() {
            if (current != null) {
                return Optional.of(current);
            }
            return committing && !plan.partitions().isEmpty() ? Optional.of(plan.partitions().getLast())
                    : Optional.empty();
        }

        @Override
        public Optional<PartitionPlan> mayHaveCommitted() {
            return committing && current == null && !plan.partitions().isEmpty()
                    ? Optional.of(plan.partitions().getLast()) : Optional.empty();
        }
    }

    private String stoppedWhy() {
        return "cancelled: " + (interrupted ? "the run was interrupted" : "another partition failed");
    }

    private void finishCommitted(List<PartitionReport> copied) {
        for (PartitionReport report : copied) {
            progress.partitionCommitted(report.rowsWritten());
            reports.add(report);
            listener.partitionFinished(plan, report);
        }
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

    /**
     * One attempt: returns {rowsRead, rowsWritten}. The writer's transaction commits only if the counts agree, and
     * agree with the partition's exact size where the source knows it.
     */
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
                throw new SluiceException(ErrorKind.VERIFICATION, "RUN020", plan.where(partition) + ": read "
                        + read + " rows from the source but the target took " + written
                        + "; the partition was rolled back", "report this as a bug with the plan (sluice plan)");
            }
            OptionalLong exact = partition.partition().exactRows();
            if (exact.isPresent() && exact.getAsLong() != read) {
                throw new SluiceException(ErrorKind.FAILED, "RUN021", plan.where(partition) + ": the source said "
                        + "at plan time that the partition holds " + exact.getAsLong() + " rows, but its reader "
                        + "returned " + read + " without an error; the partition was rolled back",
                        "check that the source did not change since the plan (a file rewritten in place), then "
                                + "sluice run --resume; if it did not, report it as a bug with the plan");
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

    private PartitionReport report(PartitionPlan partition, PartitionReport.State state, long read, long written,
                                   long bytes, int attempts, long startedNanos, String error) {
        return new PartitionReport(partition.index(), partition.partition().id(), partition.partition().predicate(),
                state, read, written, bytes, attempts, Duration.ofNanos(System.nanoTime() - startedNanos),
                Optional.ofNullable(error));
    }
}
