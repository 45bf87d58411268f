package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.ledger.PartitionDone;
import io.sluice.core.ledger.StreamDefinition;
import io.sluice.core.plan.IncrementalWindow;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.Join;
import io.sluice.core.run.context.RunIdentity;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.write.PlannedLoad;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The ledger for one stream of a run ({@link Ledger} holds the rules, on whatever store its target keeps): what is
 * recorded when, with every text redacted first. The stream's start and whole plan before anything is written; the
 * truncation once per run (a resume never empties the target again); each failed attempt; each partition's DONE row
 * in the transaction that holds its rows; the stream's end. With {@code ledger: off} nothing is recorded.
 */
final class StreamLedger {
    private final StreamPlan plan;
    private final Optional<Ledger> ledger;
    private final StreamKey key;
    private final RunIdentity run;
    private final RunListener listener;

    StreamLedger(StreamPlan plan, Optional<Ledger> ledger, RunIdentity run, RunListener listener) {
        this.plan = requireNonNull(plan, "plan is null");
        this.key = new StreamKey(requireNonNull(run, "run is null").runId(), plan.name());
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.run = requireNonNull(run, "run is null");
        this.listener = requireNonNull(listener, "listener is null");
    }

    String runId() {
        return run.runId();
    }

    StreamKey key() {
        return key;
    }

    /** The ledger's rules on the target's store; empty with {@code ledger: off}. */
    Optional<Ledger> ledger() {
        return ledger;
    }

    /** Text as the ledger may keep it: the run's secrets masked. */
    String redact(String text) {
        return run.redactor().redact(text);
    }

    /** This process's part when the run is joined. */
    Optional<Join> join() {
        return run.join();
    }

    void ensureReady() throws ConnectorException {
        if (ledger.isPresent()) {
            ledger.get().ensureReady();
        }
    }

    /**
     * This stream as planned and not started, which the run records before its first stream starts, so the ledger
     * knows the whole run ({@link Ledger#planStreams}).
     */
    LedgerStream planned() {
        return new LedgerStream(run.runId(), run.specName(), run.specChecksum(), plan.name(),
                StreamDefinition.of(plan.spec(), run.redactor()), LedgerStream.State.RUNNING, "not started",
                Instant.now(), Optional.empty(), Optional.empty(), 0, 0, Optional.empty(), 0, 0);
    }

    /** The stream's start, and its whole plan (kept once: a resume restores the first plan, never a new one). */
    void recordStart(String snapshotMode) throws ConnectorException {
        if (ledger.isEmpty()) {
            return;
        }
        if (run.join().isPresent()) {
            // A failure told to the processes of an attempt that has ended does not stop the processes joining now.
            Optional<LedgerStream> before = ledger.get().findStream(key);
            if (before.isPresent() && before.get().state() != LedgerStream.State.RUNNING) {
                ledger.get().mark(key, LedgerFeed.FAILED_MARK, "");
            }
        }
        List<LedgerPartition> planned = new ArrayList<>();
        for (PartitionPlan partition : plan.allPartitions()) {
            planned.add(LedgerPartition.planned(partition.index(), partition.id(),
                    run.redactor().redact(partition.predicate()), partition.checkpoint().orElse("")));
        }
        // Start, plan and marks in one transaction. The marks are kept once per run: a resume finishes what the
        // run's first start planned, whatever it plans now.
        java.util.Set<String> marked = ledger.get().startStream(LedgerStream.starting(run.runId(), run.specName(),
                run.specChecksum(), plan.name(), StreamDefinition.of(plan.spec(), run.redactor()), snapshotMode),
                planned, plan.startMarks());
        String files = plan.startMarks().get(IncrementalWindow.FILES);
        if (files != null && !marked.contains(IncrementalWindow.FILES)) {
            recordFilesAsRead(files);
        }
    }

    /**
     * A resumed new-files stream reads its partitions not done yet as the files are now: their versions in the run's
     * mark become the ones this plan read (a partition whose file changed again fails its read, DUCK122), so the next
     * run neither loads a rewritten file twice nor skips it. The done partitions keep the version they loaded.
     */
    private void recordFilesAsRead(String planned) throws ConnectorException {
        java.util.Set<String> pending = new java.util.HashSet<>();
        ledger.get().partitions(key).stream().filter(p -> p.state() != LedgerPartition.State.DONE)
                .forEach(p -> pending.add(p.partitionId()));
        String recorded = ledger.get().marks(key).getOrDefault(IncrementalWindow.FILES, "");
        java.util.Set<String> recordedLines = new java.util.HashSet<>(recorded.lines().toList());
        // A file's line in this plan that the run did not record: the version it will read now.
        Map<String, String> now = new java.util.HashMap<>();
        planned.lines().filter(l -> l.contains("\t") && !recordedLines.contains(l))
                .forEach(l -> now.put(l.substring(0, l.indexOf('\t')), l));
        // A pending file the resumed plan no longer has is gone: not loaded, so not in the mark.
        java.util.Set<String> present = new java.util.HashSet<>();
        plan.allPartitions().forEach(p -> present.add(p.id()));
        List<String> lines = new ArrayList<>();
        for (String line : recorded.lines().filter(l -> !l.isBlank()).toList()) {
            String id = line.contains("\t") ? line.substring(0, line.indexOf('\t')) : line;
            if (pending.contains(id) && !present.contains(id)) {
                continue;
            }
            lines.add(pending.contains(id) ? now.getOrDefault(id, line) : line);
        }
        String updated = String.join("\n", new java.util.TreeSet<>(lines));
        if (!updated.equals(recorded)) {
            ledger.get().mark(key, IncrementalWindow.FILES, updated);
        }
    }

    /**
     * Truncate happens once per run: with a ledger it is recorded with the truncation, so a resume skips it. A load
     * in one transaction truncates in that transaction instead.
     */
    void prepareTarget(PlannedLoad target) throws ConnectorException {
        if (plan.oneTransaction()) {
            return;
        }
        if (!plan.spec().load().emptiesFirst()) {
            return;
        }
        if (ledger.isPresent()) {
            ledger.get().truncateOnce(target, key);
        } else {
            target.truncate();
        }
    }

    /**
     * Where the target keeps its load's steps: the ledger, or with {@code ledger: off} this process's memory (the modes
     * that must survive a crash are refused without a ledger at lint time).
     */
    LoadMarks loadMarks() {
        if (ledger.isPresent()) {
            return ledger.get().loadMarks(key, run.specName());
        }
        java.util.Map<String, String> kept = new java.util.concurrent.ConcurrentHashMap<>();
        return new LoadMarks() {
            @Override
            public String runId() {
                return key.runId();
            }

            @Override
            public LedgerWork<Map<String, String>> reading() {
                return tx -> new java.util.TreeMap<>(kept);
            }

            @Override
            public LedgerWork<Void> writing(String name, String value) {
                return tx -> {
                    kept.put(name, value);
                    return null;
                };
            }
        };
    }

    /** The target's marks as they stand, outside any transaction of the load's. */
    Map<String, String> targetMarks(LoadMarks marks) throws ConnectorException {
        if (ledger.isEmpty()) {
            return marks.reading().apply(null); // this process's memory: no transaction to read in
        }
        Map<String, String> own = new java.util.TreeMap<>();
        ledger.get().marks(key).forEach((name, value) -> {
            if (name.startsWith(Ledger.TARGET_MARKS)) {
                own.put(name.substring(Ledger.TARGET_MARKS.length()), value);
            }
        });
        return own;
    }

    /** What a one-transaction load runs before it empties the target: records the truncation, once per run. */
    Optional<LedgerWork<Boolean>> truncatingFirst() {
        return ledger.map(l -> l.truncatingFirst(key));
    }

    /** What a partition's commit runs in its transaction: its DONE row; empty without a ledger. */
    Optional<LedgerWork<Void>> markingDone(PartitionPlan partition, long rows, long bytes, int attempt,
                                           Instant firstStart, long rejected) {
        return ledger.map(l -> l.markingDone(new PartitionDone(key, partition.id(), rows, bytes, attempt,
                firstStart, run.join().map(Join::holder), rejected)));
    }

    /** {rows loaded, rows set aside} by the partitions of this run the ledger has done (a resumed run's). */
    long[] doneTotals() {
        if (ledger.isEmpty()) {
            return new long[] {0, 0};
        }
        try {
            long rows = 0;
            long rejected = 0;
            for (LedgerPartition p : ledger.get().partitions(key)) {
                if (p.state() == LedgerPartition.State.DONE) {
                    rows += p.rows();
                    rejected += p.rejected();
                }
            }
            return new long[] {rows, rejected};
        } catch (ConnectorException e) {
            throw new SluiceException(e.kind(), e.code(), e.getMessage(), e.fix().orElse(null), e);
        }
    }

    /** The partition's ledger row when the ledger says it is done, e.g. after a commit whose answer was lost. */
    Optional<LedgerPartition> committedDespite(PartitionPlan partition) {
        if (ledger.isEmpty()) {
            return Optional.empty();
        }
        try {
            return ledger.get().partitions(key).stream()
                    .filter(p -> p.partitionId().equals(partition.id()) && p.state() == LedgerPartition.State.DONE)
                    .findFirst();
        } catch (ConnectorException | RuntimeException e) {
            return Optional.empty(); // the ledger is unreachable too; a retry's commit will refuse a duplicate
        }
    }

    /**
     * In a joined run, who has the partition now when this process no longer does (its lease ended and another
     * process took it over, or it is done): a retry would only copy its rows a second time. Empty while it is this
     * process's, outside a joined run, or when the ledger cannot tell.
     */
    Optional<String> lostTo(PartitionPlan partition) {
        if (ledger.isEmpty() || run.join().isEmpty()) {
            return Optional.empty();
        }
        String self = run.join().get().holder();
        try {
            return ledger.get().partitions(key).stream().filter(p -> p.partitionId().equals(partition.id()))
                    .findFirst().flatMap(p -> p.state() == LedgerPartition.State.DONE ? Optional.of("done by another "
                            + "process") : p.claim().map(PartitionClaim::holder)
                            .filter(holder -> !holder.equals(self)).map(holder -> "held by " + holder));
        } catch (ConnectorException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** One attempt that did not commit; a ledger that cannot take it is told to the listener, not fatal. */
    void recordAttempt(PartitionPlan partition, int attempt, Instant startedAt, AttemptRecord.Outcome outcome,
                       Optional<SluiceException> error) {
        if (ledger.isEmpty()) {
            return;
        }
        try {
            ledger.get().recordAttempt(new AttemptRecord(run.runId(), plan.name(), partition.id(), attempt, startedAt,
                    Instant.now(), outcome, error.map(SluiceException::code),
                    error.map(e -> run.redactor().redact(e.getMessage()))));
        } catch (ConnectorException | RuntimeException e) {
            listener.ledgerProblem(plan, "could not record attempt " + attempt + " of partition " + partition.id()
                    + " in the ledger: " + e.getMessage());
        }
    }

    void recordFinish(StreamReport.State state, long rows, Optional<SluiceException> error) {
        if (ledger.isEmpty()) {
            return;
        }
        LedgerStream.State recorded = switch (state) {
            case DONE -> LedgerStream.State.DONE;
            case INTERRUPTED -> LedgerStream.State.INTERRUPTED;
            default -> LedgerStream.State.FAILED;
        };
        try {
            // The stream's rows are every done partition's, whichever process or invocation copied it.
            ledger.get().finishStream(key, recorded, error.map(e -> run.redactor().redact(e.getMessage())));
        } catch (ConnectorException | RuntimeException e) {
            listener.ledgerProblem(plan, "could not record the end of the stream in the ledger: " + e.getMessage());
        }
    }

    /** {@code verify: compare}'s outcome, kept as the run's {@link Verification#COMPARE_MARK} for {@code sluice status}. */
    void recordCompare(String outcome) {
        if (ledger.isEmpty()) {
            return;
        }
        try {
            ledger.get().mark(key, Verification.COMPARE_MARK, run.redactor().redact(outcome));
        } catch (ConnectorException | RuntimeException e) {
            listener.ledgerProblem(plan, "could not record the compare's outcome in the ledger: " + e.getMessage());
        }
    }
}
