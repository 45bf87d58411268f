package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunIdentity;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import io.sluice.core.spec.StreamHooks;
import io.sluice.core.spec.VerifyMode;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.LoadedRowsCheck;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.SharedClaims;
import io.sluice.spi.write.TargetClaim;
import io.sluice.spi.write.TargetHooks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Runs one stream: waits for the locks, claims the target, records the start, prepares the target, opens the source
 * session (snapshot), and lets {@code degree} workers ({@link PartitionWorker}) pull partitions in plan order, or one
 * worker write them all in one transaction ({@link OneTransactionLoad}). Both go through one attempt/retry/cancel
 * routine ({@link PartitionAttempts}); the first permanent failure stops the other workers promptly, and their
 * cancellations are not reported as errors of their own.
 *
 * <p>Fail-safe by construction: no throwable ends a worker or the stream unreported (what no connector declared
 * becomes RUN030), and a stream is DONE only when every partition it set out to copy has a DONE report (RUN040
 * otherwise), whatever path it took.
 */
final class StreamExecutor {
    private final StreamWork work;
    private final StreamPlan plan;
    private final StreamBinding binding;
    private volatile long deletedRows;
    /** The snapshot this stream reads with the other streams of its group ({@link SharedSnapshots}), if any. */
    private final Optional<SharedSnapshot> shared;

    /** What every target does once every stream is done, when this stream's load is the run's last to finish. */
    private final AcrossStreams acrossStreams;

    StreamExecutor(StreamPlan plan, StreamBinding binding, RunIdentity run, RunListener listener,
                   RunProgress progress) {
        this(plan, binding, run, listener, progress, Optional.empty(), AcrossStreams.none());
    }

    StreamExecutor(StreamPlan plan, StreamBinding binding, RunIdentity run, RunListener listener,
                   RunProgress progress, Optional<SharedSnapshot> shared, AcrossStreams acrossStreams) {
        this.shared = requireNonNull(shared, "shared is null");
        this.acrossStreams = requireNonNull(acrossStreams, "acrossStreams is null");
        this.work = new StreamWork(plan, binding, run, listener, progress);
        this.plan = plan;
        this.binding = binding;
    }

    StreamReport execute() {
        long started = System.nanoTime();
        work.progress.startStream(plan.name(), plan.partitions().size(), plan.estimatedBytes());
        Verification verification = Verification.notRequested();
        Verifier verifier = new Verifier(plan, binding);
        LoadedCompare compare = new LoadedCompare(plan, binding, verifier);
        try {
            LockWaits waits = lockWaits();
            binding.source().waitForLocks(waits);
            binding.load().waitForLocks(waits);
            work.ledger.ensureReady();
            // The claim first: a second run of this target waits here, before it records, truncates or reads anything.
            // The processes of a joined run share the claim; the ledger then decides who copies what.
            try (TargetClaim claim = work.ledger.join().isPresent()
                    ? sharedClaims(binding).claimShared(work.ledger.runId(),
                    work.ledger.join().orElseThrow().holder())
                    : binding.load().claim(work.ledger.runId());
                 SourceSession session = shared.isPresent()
                         ? binding.source().snapshotGroup().orElseThrow().openSession(shared.get())
                         : binding.source().openSession(plan.spec().consistency())) {
                work.ledger.recordStart(session.snapshotMode());
                LoadMarks marks = work.ledger.loadMarks();
                acrossStreams.uses(plan.name(), marks);
                hook("before", plan.spec().hooks().before(), marks); // pre-data, e.g. a schema the load creates into
                binding.load().begin(marks); // creates what the target lacks before it is emptied
                try {
                    verification = load(session, marks, verifier, compare);
                    if (work.firstError().isEmpty() && !work.interrupted()) {
                        hook("after", plan.spec().hooks().after(), marks);
                        acrossStreams.hooksFinished();
                    }
                } catch (Throwable e) {
                    failed(e);
                }
                abortIfFailed(marks);
            }
        } catch (Throwable e) {
            failed(e);
        }
        if (verification.status() == Verification.Status.NOT_REQUESTED && compare.result().isPresent()) {
            verification = compare.result().get(); // it failed the load before it could return it
        }
        if (verification.mode() == VerifyMode.COMPARE && verification.status() != Verification.Status.SKIPPED) {
            work.ledger.recordCompare(verification.outcome());
        }
        List<PartitionReport> reports = work.reports();
        long rows = reports.stream().filter(r -> r.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::rowsWritten).sum();
        long bytes = reports.stream().filter(r -> r.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::bytes).sum();
        StreamReport.State state = work.interrupted() ? StreamReport.State.INTERRUPTED
                : work.firstError().isPresent() ? StreamReport.State.FAILED : StreamReport.State.DONE;
        work.ledger.recordFinish(state, rows, work.firstError());
        work.progress.finishStream(plan.name(), plan.estimatedBytes(), bytes);
        StreamReport report = new StreamReport(plan.name(), state, plan.degree(), rows, bytes,
                Duration.ofNanos(System.nanoTime() - started), reports, plan.partitions().size(),
                work.attempts.retries(), work.firstError(), verification, deletedRows,
                plan.allPartitions().size() - plan.partitions().size(), plan.load().shapeChanges());
        work.listener.streamFinished(plan, report);
        return report;
    }

    /** Empties the target once, runs the workers, finishes the load, verifies; failures go to {@link #failed}. */
    private Verification load(SourceSession session, LoadMarks marks, Verifier verifier, LoadedCompare compare)
            throws Exception {
        work.ledger.prepareTarget(binding.load());
        Optional<Digest> baseline = verifier.baseline();
        work.listener.streamStarted(plan, session.snapshotMode());
        Optional<LedgerFeed> joined = joinedFeed();
        LoadedRowsCheck check = compare.on(session, () -> verifiesHere(joined));
        try {
            runWorkers(session, joined, check);
            requireEveryPartitionDone(joined);
            if (work.firstError().isEmpty() && !work.interrupted()) {
                // Index builds, sequences, deletes and the swap (verify: compare before it): once every partition
                // is done.
                binding.load().finish(marks, check);
                deletedRows = plan.spec().load().deleteMissing() ? deletedRows(marks) : 0; // only a delete deletes
                acrossStreams.loadFinished();
            }
        } finally {
            joined.ifPresent(LedgerFeed::close);
        }
        if (verifier.compares()) {
            return compare.result().orElse(Verification.notRequested());
        }
        if (!verifier.requested() || work.firstError().isPresent() || work.interrupted() || !verifiesHere(joined)) {
            return Verification.notRequested();
        }
        Verification verification = verifier.verify(session, baseline);
        if (verification.status() == Verification.Status.FAILED) {
            work.fail(new SluiceException(ErrorKind.VERIFICATION, RunnerCode.VERIFY001, plan.where() + ": verify "
                    + plan.spec().verify().name().toLowerCase(Locale.ROOT) + " found "
                    + String.join("; ", verification.mismatches()),
                    "the target does not hold what the source held in the run's snapshot: look for "
                            + "writers or triggers on the target table, then run again"));
        }
        return verification;
    }

    /**
     * Runs a hook's statements on the target, once per run (the target marks it in the ledger with them); a failure
     * is the stream's, and a resume runs the hook again, since its mark never committed.
     */
    private void hook(String phase, List<String> statements, LoadMarks marks) throws ConnectorException {
        if (statements.isEmpty()) {
            return;
        }
        if (hooksOf(binding.load(), phase).runHook(phase, StreamHooks.forTable(statements, plan.targetTable()),
                marks)) {
            work.listener.hookRan(plan, phase, statements.size());
        }
    }

    /** The target's hooks, or SPI010 (as a connector would say it) for a target that runs none. */
    static TargetHooks hooksOf(PlannedLoad load, String phase) throws ConnectorException {
        return load.hooks().orElseThrow(() -> new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI010,
                load.plan().table().qualifiedName() + " cannot run " + phase + " hooks", "remove the stream's "
                + phase + ":"));
    }

    /** Whatever ended the stream early becomes its failure (or its interruption); nothing passes unreported. */
    private void failed(Throwable e) {
        switch (e) {
            case ConnectorException c -> work.fail(SluiceException.from(c, plan.where()));
            case SluiceException c -> work.fail(c);
            case InterruptedException i -> {
                Thread.currentThread().interrupt();
                work.interrupt();
            }
            default -> work.fail(SluiceException.unexpected(e, plan.where()));
        }
    }

    /**
     * After a failure (not an interruption, which must end promptly, nor in a joined run, whose other processes may
     * still load): the target puts back what its load took away. A failure of that is told with the stream's error.
     */
    private void abortIfFailed(LoadMarks marks) {
        if (work.firstError().isEmpty() || work.interrupted() || work.ledger.join().isPresent()) {
            return;
        }
        try {
            binding.load().abort(marks);
        } catch (ConnectorException | RuntimeException e) {
            work.listener.ledgerProblem(plan, "could not put the target back as it was after the failure: "
                    + work.ledger.redact(e.getMessage()) + "; the next run of the spec does it first");
        }
    }

    /** The rows the target's finish deleted ({@link LoadMarks#DELETED_ROWS}); 0 when it deleted none. */
    private long deletedRows(LoadMarks marks) throws ConnectorException {
        java.util.Map<String, String> recorded = work.ledger.targetMarks(marks);
        String value = recorded.getOrDefault(LoadMarks.DELETED_ROWS, "");
        return value.isEmpty() ? 0 : Long.parseLong(value);
    }

    /** Stops the stream from outside (Ctrl-C, SIGTERM): in-flight copies are cancelled and rolled back. */
    void interrupt() {
        work.interrupt();
    }

    /** The target's shared claim for a joined run; a target without one refuses (SPI005). */
    private static SharedClaims sharedClaims(StreamBinding binding) throws ConnectorException {
        return binding.load().sharedClaims().orElseThrow(() -> new ConnectorException(ErrorKind.PREFLIGHT,
                SpiCode.SPI005, binding.target().describe() + " cannot be loaded by several processes of one run",
                "run without --join"));
    }

    /** The stream's lock-timeout, with each wait shown on the progress line and told to the listener. */
    private LockWaits lockWaits() {
        return LockWaits.of(plan.spec().lockTimeout(), (what, waiting) -> {
            work.progress.waiting(what, waiting);
            work.listener.lockWait(plan, what, waiting);
        });
    }

    /** In a joined run, the ledger's claims; empty when this process copies its own plan. */
    private Optional<LedgerFeed> joinedFeed() {
        return work.ledger.join().flatMap(join -> work.ledger.ledger().map(ledger -> new LedgerFeed(work, ledger,
                join)));
    }

    /** Verification of a joined run is done once, by the first process that gets there. */
    private boolean verifiesHere(Optional<LedgerFeed> joined) throws ConnectorException {
        if (joined.isEmpty()) {
            return true;
        }
        Ledger ledger = work.ledger.ledger().orElseThrow();
        return ledger.markFirst(work.ledger.key(), "verified-by", work.ledger.join().orElseThrow().holder());
    }

    private void runWorkers(SourceSession session, Optional<LedgerFeed> joined, LoadedRowsCheck check)
            throws InterruptedException {
        int workers = plan.workers(joined.isPresent());
        PartitionFeed feed = joined.isPresent() ? joined.get()
                : PartitionFeed.of(new ConcurrentLinkedQueue<>(plan.partitions()));
        if (workers == 1) {
            // One worker runs on the stream's own thread, which would only wait for it: a virtual thread of its own
            // cost a start, a join and a park and unpark on every round trip of its reader and writer (1,000 small
            // tables one after another: about a second of wall time and 0.8 s of CPU).
            failSafe(plan.oneTransaction() ? new OneTransactionLoad(work, session, check)
                    : new PartitionWorker(work, session, feed), "sluice-" + plan.name() + "-0");
            return;
        }
        ThreadFactory threads = binding.readerThreads() == Source.ThreadModel.PLATFORM
                ? Thread.ofPlatform().name("sluice-" + plan.name() + "-", 0).daemon().factory()
                : Thread.ofVirtual().name("sluice-" + plan.name() + "-", 0).factory();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Runnable worker = plan.oneTransaction() ? new OneTransactionLoad(work, session, check)
                    : new PartitionWorker(work, session, feed);
            Thread thread = threads.newThread(() -> failSafe(worker, Thread.currentThread().getName()));
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
    private void failSafe(Runnable worker, String name) {
        try {
            worker.run();
        } catch (Throwable e) {
            work.fail(SluiceException.unexpected(e, plan.where() + ", worker " + name));
        }
    }

    /**
     * The invariant behind "done": every partition this run set out to copy has a DONE report. A worker that ended
     * early without a failure, or a report that went missing, fails the stream here instead of passing for done.
     */
    private void requireEveryPartitionDone(Optional<LedgerFeed> joined) throws ConnectorException {
        if (joined.isPresent()) {
            requireEveryPartitionDoneByAnyProcess(joined.get());
            return;
        }
        if (work.firstError().isPresent() || work.interrupted()) {
            return;
        }
        Set<Integer> done = new HashSet<>();
        for (PartitionReport report : work.reports()) {
            if (report.state() == PartitionReport.State.DONE) {
                done.add(report.index());
            }
        }
        List<PartitionPlan> missing = plan.partitions().stream().filter(p -> !done.contains(p.index())).toList();
        if (missing.isEmpty()) {
            return;
        }
        String named = missing.stream().limit(5).map(p -> (p.index() + 1) + " (" + p.predicate() + ")")
                .collect(Collectors.joining(", ")) + (missing.size() > 5 ? ", ..." : "");
        work.fail(new SluiceException(ErrorKind.FAILED, RunnerCode.RUN040, plan.where() + ": " + missing.size() + " of "
                + plan.partitions().size() + " partitions to copy ended without being done: " + named,
                "this is a bug in Sluice or the connector: report it with the plan (sluice plan) and the log; the "
                        + "run is resumable, sluice run --resume copies what is not done"));
    }

    /**
     * A joined run is done when the ledger says every partition is, whoever copied it. This process's own failure is
     * told to the others; one another process told ends this one with that cause.
     */
    private void requireEveryPartitionDoneByAnyProcess(LedgerFeed feed) throws ConnectorException {
        if (work.interrupted()) {
            return;
        }
        if (work.firstError().isPresent()) {
            if (feed.failedElsewhere().isEmpty()) {
                feed.tellOthers(work.firstError().get());
            }
            return;
        }
        if (feed.failedElsewhere().isPresent()) {
            work.fail(feed.failedElsewhere().get());
            return;
        }
        if (!feed.allDone()) {
            work.fail(new SluiceException(ErrorKind.FAILED, RunnerCode.RUN040, plan.where() + ": this process "
                    + "found nothing left to claim, but the ledger says partitions of run " + work.ledger.runId()
                    + " are not done", "this is a bug in Sluice: report it with the log; the run is resumable, "
                    + "join it again (or --resume) to copy what is not done"));
        }
    }
}
