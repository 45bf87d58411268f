package io.sluice.core.ledger;

import io.sluice.core.RunnerCode;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.write.PlannedLoad;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The run ledger's rules, the same on every target's {@link LedgerStore}: a run id belongs to one spec; a stream's
 * start is recorded before anything else of it, and each resume counts as a start; its plan is kept once (a resume
 * restores the first plan, never a second one); its target is emptied once per run; a partition is done at most once,
 * in the transaction that holds its rows; attempts show on their partition. Stream rows are locked before they are
 * read for a decision, so two processes of one run decide one after the other.
 *
 * <p>Over 400 lines on purpose: these are all the ledger's rules, read and changed together in one place (each a
 * short method over the store's rows); the stores below keep rows and know no rule.
 */
public final class Ledger {
    /** The prefix of the marks a target keeps through {@link #loadMarks}. */
    public static final String TARGET_MARKS = "target.";
    private final LedgerStore store;
    private final FeedLedger feeds;
    private final ClaimLedger claims;
    /** The store said it is ready: a ledger lives for one run's plan, and its stream asked four times. */
    private volatile boolean ready;
    /**
     * The spec's unfinished runs other than this one, as the run found them before its first stream
     * ({@link #knowEarlierRuns}); empty: not known, each stream asks for its own earlier runs.
     */
    private volatile Optional<java.util.Set<String>> unfinishedEarlier = Optional.empty();
    /** The run is fresh: no process ran its id before ({@link LoadMarks#ranBefore}). */
    private volatile boolean fresh;

    public Ledger(LedgerStore store) {
        this.store = requireNonNull(store, "store is null");
        this.feeds = new FeedLedger(this.store);
        this.claims = new ClaimLedger(this.store);
    }

    public String describe() {
        return store.describe();
    }

    /**
     * The store's tables exist at its version and the user may use them, asked of the store once for this ledger's
     * life (one run): a ledger dropped under a running run fails its next write, with the store's error.
     */
    public void ensureReady() throws ConnectorException {
        if (!ready) {
            store.ensureReady();
            ready = true;
        }
    }

    /**
     * The runs of {@code specName} other than {@code runId} with a stream not done, when the store can tell with one
     * read; empty when it cannot.
     */
    public Optional<java.util.Set<String>> unfinishedRuns(String specName, String runId) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(runId, "runId is null");
        return store.unfinishedRuns(specName).map(runs -> {
            java.util.Set<String> others = new java.util.HashSet<>(runs);
            others.remove(runId);
            return java.util.Set.copyOf(others);
        });
    }

    /**
     * What the run found before its first stream on the store this ledger shares with other streams of the run: the
     * store is ready (the run made it so: a thousand streams asked it one after another), the spec's other unfinished
     * runs ({@link #unfinishedRuns}; empty: not known; none: no stream has earlier runs to look up), and whether the
     * run is fresh.
     */
    public void knowRunStart(Optional<java.util.Set<String>> unfinished, boolean fresh) {
        this.unfinishedEarlier = requireNonNull(unfinished, "unfinished is null").map(java.util.Set::copyOf);
        this.fresh = fresh;
        this.ready = true;
    }

    /**
     * Records a stream of a run as planned but not started ({@code starts} 0), unless the ledger knows it already: a
     * run that dies before it reaches the stream stays unfinished in the ledger, so status and --resume see it.
     */
    public void planStream(LedgerStream stream) throws ConnectorException {
        requireNonNull(stream, "stream is null");
        store.inTransaction(tx -> tx.insertStream(stream));
    }

    /** {@link #planStream} for several streams, in one transaction of the store. */
    public void planStreams(List<LedgerStream> streams) throws ConnectorException {
        requireNonNull(streams, "streams is null");
        store.inTransaction(tx -> {
            for (LedgerStream stream : streams) {
                tx.insertStream(stream);
            }
            return null;
        });
    }

    /** Records that a stream of a run starts, or starts again on resume (its start count grows). */
    public void startStream(LedgerStream stream) throws ConnectorException {
        requireNonNull(stream, "stream is null");
        store.inTransaction(starting(stream));
    }

    /**
     * A stream's start ({@link #startStream}), its plan ({@link #recordPlan}) and the marks it sets once per run
     * ({@link #markFirst}), in one transaction of the store: a run of a thousand small tables paid a transaction for
     * each. Returns the names of {@code firstMarks} set now (the others the stream had already).
     */
    public java.util.Set<String> startStream(LedgerStream stream, List<LedgerPartition> partitions,
                                             Map<String, String> firstMarks) throws ConnectorException {
        requireNonNull(stream, "stream is null");
        requireNonNull(partitions, "partitions is null");
        requireNonNull(firstMarks, "firstMarks is null");
        return store.inTransaction(tx -> {
            // The stream's row locked once, for all three. A stream never started has no plan yet: only a start
            // writes one (planning refuses a stream not started), so its plan is written without reading.
            boolean firstStart = startingLocked(stream, tx);
            if (firstStart || tx.partitions(stream.key()).stream().noneMatch(p -> p.index() >= 0)) {
                tx.writePartitions(stream.key(), partitions);
            }
            java.util.Set<String> set = new java.util.LinkedHashSet<>();
            if (!firstMarks.isEmpty()) {
                Map<String, String> marked = tx.marks(stream.key());
                for (Map.Entry<String, String> mark : firstMarks.entrySet()) {
                    if (!marked.containsKey(mark.getKey())) {
                        tx.writeMark(stream.key(), mark.getKey(), mark.getValue());
                        set.add(mark.getKey());
                    }
                }
            }
            return set;
        });
    }

    private LedgerWork<Void> starting(LedgerStream stream) {
        return tx -> {
            startingLocked(stream, tx);
            return null;
        };
    }

    /**
     * Records the start in {@code tx}, the stream's row locked from here to the transaction's end; true when it is the
     * stream's first start (its row was new, or only planned).
     */
    private boolean startingLocked(LedgerStream stream, LedgerTransaction tx)
            throws ConnectorException {
        Optional<LedgerStream> locked = tx.lockStream(stream.key()); // a stream the run planned is there
        if (locked.isEmpty() && tx.insertStream(stream)) {
            return true;
        }
        // Another process inserted it first (its insert committed, ours found the conflict): lock what it wrote.
        LedgerStream recorded = locked.isPresent() ? locked.get()
                : tx.lockStream(stream.key()).orElseThrow(() -> notStarted(stream.key()));
        if (!recorded.specName().equals(stream.specName())) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, RunnerCode.LEDGER004, "run id '"
                    + stream.runId() + "' already belongs to spec '" + recorded.specName() + "' in "
                    + store.describe() + " (stream " + stream.stream() + ")", "give this run another --run-id");
        }
        tx.updateStream(new LedgerStream(recorded.runId(), recorded.specName(), stream.specChecksum(),
                recorded.stream(), stream.definition(), LedgerStream.State.RUNNING, stream.snapshotMode(),
                // A stream only planned so far starts now; a resumed one keeps its first start.
                recorded.starts() == 0 ? stream.startedAt() : recorded.startedAt(), Optional.empty(), recorded.truncatedAt(), recorded.rows(),
                recorded.starts() + 1, Optional.empty(), recorded.partitionsPlanned(),
                recorded.partitionsDone()));
        return recorded.starts() == 0;
    }

    public Optional<LedgerStream> findStream(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        return store.streamsOfRun(key.runId()).stream().filter(s -> s.stream().equals(key.stream())).findFirst();
    }

    public List<LedgerStream> streamsOfSpec(String specName, int runs) throws ConnectorException {
        return store.streamsOfSpec(requireNonNull(specName, "specName is null"), runs);
    }

    public List<LedgerStream> streamsOfRun(String runId) throws ConnectorException {
        return store.streamsOfRun(requireNonNull(runId, "runId is null"));
    }

    public List<LedgerPartition> partitions(StreamKey key) throws ConnectorException {
        return store.partitions(requireNonNull(key, "key is null"));
    }

    /** The attempts of the stream of a run that did not commit, in the order they were recorded. */
    public List<AttemptRecord> attempts(StreamKey key) throws ConnectorException {
        return store.attempts(requireNonNull(key, "key is null"));
    }

    /** The named values the stream of a run keeps ({@link #marking}). */
    public java.util.Map<String, String> marks(StreamKey key) throws ConnectorException {
        return store.marks(requireNonNull(key, "key is null"));
    }

    /**
     * Sets a named value of the stream of a run, in whatever transaction runs the work: the target's, when the mark
     * must commit with what it marks (a table created, a shadow swapped in), else {@code store.inTransaction}.
     */
    public LedgerWork<Void> marking(StreamKey key, String name, String value) {
        requireNonNull(key, "key is null");
        requireNonNull(name, "name is null");
        requireNonNull(value, "value is null");
        return tx -> {
            tx.lockStream(key).orElseThrow(() -> notStarted(key));
            tx.writeMark(key, name, value);
            return null;
        };
    }

    /**
     * The target's marks for the stream of a run ({@link LoadMarks}): kept under their own prefix, so a target's names
     * never meet the runner's.
     */
    public LoadMarks loadMarks(StreamKey key, String specName) {
        requireNonNull(key, "key is null");
        requireNonNull(specName, "specName is null");
        return new TargetMarks(this, store, key, specName);
    }

    /** {@link #marking} in a short transaction of the store's own. */
    public void mark(StreamKey key, String name, String value) throws ConnectorException {
        store.inTransaction(marking(key, name, value));
    }

    /**
     * The mark {@code name} of the newest run of the spec whose stream ended done and has it (an incremental
     * stream's high-water mark): runs that failed or are unfinished never count.
     */
    public Optional<String> lastMark(String specName, String stream, String name) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(name, "name is null");
        List<LedgerStream> runs = store.streamsOfSpec(specName, 1000).stream()
                .filter(s -> s.stream().equals(stream) && s.state() == LedgerStream.State.DONE)
                .sorted(java.util.Comparator.comparing(LedgerStream::startedAt).reversed()).toList();
        for (LedgerStream run : runs) {
            Optional<String> mark = Optional.ofNullable(store.marks(run.key()).get(name));
            if (mark.isPresent()) {
                return mark;
            }
        }
        return Optional.empty();
    }

    /** Keeps a stream's plan, once: when the run planned the stream before, the first plan stays and this adds none. */
    public void recordPlan(StreamKey key, List<LedgerPartition> partitions) throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(partitions, "partitions is null");
        store.inTransaction(planning(key, partitions));
    }

    private LedgerWork<Void> planning(StreamKey key, List<LedgerPartition> partitions) {
        return tx -> {
            // Two plans of one stream wait for each other. Only a started stream has a plan: a start writes the
            // first one without looking.
            tx.lockStream(key).filter(s -> s.starts() > 0).orElseThrow(() -> notStarted(key));
            if (tx.partitions(key).stream().noneMatch(p -> p.index() >= 0)) {
                tx.writePartitions(key, partitions);
            }
            return null;
        };
    }

    /**
     * Empties the target for the stream's run once: in the target's transaction, with the record that it did, so a
     * resume (or another process of the run) never empties it again. Returns whether it emptied it now.
     */
    public boolean truncateOnce(PlannedLoad load, StreamKey key) throws ConnectorException {
        requireNonNull(load, "load is null");
        return load.ledgeredTruncate().orElseThrow(() -> new ConnectorException(ErrorKind.FAILED, SpiCode.SPI003,
                load.plan().table().qualifiedName() + " keeps no run ledger", "set ledger: off in the spec"))
                .truncate(truncatingFirst(key));
    }

    /**
     * The ledger's part of emptying the target in the target's transaction: true, recording the truncation, unless
     * the run's stream was emptied before. It locks the stream's row first, so a racing process waits and then sees
     * the truncation recorded.
     */
    public LedgerWork<Boolean> truncatingFirst(StreamKey key) {
        requireNonNull(key, "key is null");
        return tx -> {
            LedgerStream stream = tx.lockStream(key).orElseThrow(() -> notStarted(key));
            if (stream.truncatedAt().isPresent()) {
                return false;
            }
            tx.updateStream(new LedgerStream(stream.runId(), stream.specName(), stream.specChecksum(),
                    stream.stream(), stream.definition(), stream.state(), stream.snapshotMode(), stream.startedAt(),
                    stream.finishedAt(), Optional.of(Instant.now()), stream.rows(), stream.starts(), stream.error(),
                    stream.partitionsPlanned(), stream.partitionsDone()));
            return true;
        };
    }

    /**
     * The ledger's part of a partition's commit, in the transaction that holds its rows: marks it done, or refuses
     * when it is done already (a commit whose answer was lost and was retried, or a second process), which rolls the
     * rows back instead of copying them twice. The partition's row lock orders two racing commits.
     */
    public LedgerWork<Void> markingDone(PartitionDone done) {
        requireNonNull(done, "done is null");
        return tx -> {
            Optional<LedgerPartition> recorded = tx.lockPartition(done.stream(), done.partitionId());
            if (recorded.isPresent() && recorded.get().state() == LedgerPartition.State.DONE) {
                throw new ConnectorException(ErrorKind.FAILED, RunnerCode.LEDGER002, "partition "
                        + done.partitionId() + " of stream " + done.stream().stream() + " of run "
                        + done.stream().runId() + " is already done in " + store.describe() + "; committing it "
                        + "again would copy its rows twice, so this attempt was rolled back",
                        "nothing to repair: the partition's rows are in the target once. If the runner retried "
                                + "after a commit whose answer was lost, report it as a bug");
            }
            if (done.holder().isPresent()) {
                Optional<String> holder = recorded.flatMap(LedgerPartition::claim).map(PartitionClaim::holder);
                if (!holder.equals(done.holder())) {
                    throw new ConnectorException(ErrorKind.FAILED, RunnerCode.LEDGER005, "partition "
                            + done.partitionId() + " of stream " + done.stream().stream() + " is held by "
                            + holder.orElse("no process") + " now: the lease of " + done.holder().get()
                            + " ended before its commit, so its rows were rolled back", "nothing to repair: the "
                            + "holder copies it; if this happens often, give --lease-seconds more room");
                }
            }
            LedgerPartition planned = recorded.orElse(LedgerPartition.planned(-1, done.partitionId(), "", ""));
            tx.writePartitions(done.stream(), List.of(new LedgerPartition(planned.index(), planned.partitionId(),
                    planned.predicate(), planned.checkpoint(), LedgerPartition.State.DONE, done.rows(), done.bytes(),
                    done.attempts(), Optional.of(done.startedAt()), Optional.of(Instant.now()), planned.claim(),
                    done.rejected())));
            return null;
        };
    }

    /**
     * Sets a mark unless the stream has one of that name already: true for the one process of a joined run that
     * sets it first (to do something once, e.g. verify), false for the others.
     */
    public boolean markFirst(StreamKey key, String name, String value) throws ConnectorException {
        requireNonNull(key, "key is null");
        return store.inTransaction(markingFirst(key, name, value));
    }

    private LedgerWork<Boolean> markingFirst(StreamKey key, String name, String value) {
        return tx -> {
            tx.lockStream(key).orElseThrow(() -> notStarted(key));
            if (tx.marks(key).containsKey(name)) {
                return false;
            }
            tx.writeMark(key, name, value);
            return true;
        };
    }

    /** Records one failed or cancelled attempt; a partition not done yet shows how often it was tried. */
    public void recordAttempt(AttemptRecord attempt) throws ConnectorException {
        requireNonNull(attempt, "attempt is null");
        StreamKey key = new StreamKey(attempt.runId(), attempt.stream());
        store.inTransaction(tx -> {
            tx.insertAttempt(attempt);
            Optional<LedgerPartition> recorded = tx.lockPartition(key, attempt.partitionId());
            if (recorded.isPresent() && recorded.get().state() == LedgerPartition.State.PLANNED) {
                LedgerPartition p = recorded.get(); // its claim stays until a failure is told (LedgerFeed.ended)
                tx.writePartitions(key, List.of(new LedgerPartition(p.index(), p.partitionId(), p.predicate(),
                        p.checkpoint(), p.state(), p.rows(), p.bytes(), Math.max(p.attempts(), attempt.attempt()),
                        p.startedAt().or(() -> Optional.of(attempt.startedAt())), p.finishedAt(), p.claim(),
                        p.rejected())));
            }
            return null;
        });
    }

    /** Records a stream's end: done, failed or interrupted (or running again, which clears the end). */
    public void finishStream(StreamKey key, LedgerStream.State state, long rows, Optional<String> error)
            throws ConnectorException {
        finishing(key, state, error, tx -> rows);
    }

    /**
     * {@link #finishStream} with the stream's rows as its done partitions count them, whichever process or invocation
     * copied them (a joined run's other processes, a resumed run's earlier tries), read in the same transaction.
     */
    public void finishStream(StreamKey key, LedgerStream.State state, Optional<String> error)
            throws ConnectorException {
        finishing(key, state, error, tx -> tx.partitions(key).stream()
                .filter(p -> p.state() == LedgerPartition.State.DONE).mapToLong(LedgerPartition::rows).sum());
    }

    private void finishing(StreamKey key, LedgerStream.State state, Optional<String> error, LedgerWork<Long> rows)
            throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(state, "state is null");
        requireNonNull(error, "error is null");
        store.inTransaction(tx -> {
            LedgerStream s = tx.lockStream(key).orElseThrow(() -> notStarted(key));
            tx.updateStream(finished(s, state, rows.apply(tx), error));
            return null;
        });
    }

    private static LedgerStream finished(LedgerStream s, LedgerStream.State state, long rows, Optional<String> error) {
        return new LedgerStream(s.runId(), s.specName(), s.specChecksum(), s.stream(), s.definition(), state,
                s.snapshotMode(), s.startedAt(),
                state == LedgerStream.State.RUNNING ? Optional.empty() : Optional.of(Instant.now()),
                s.truncatedAt(), rows, s.starts(), error, s.partitionsPlanned(), s.partitionsDone());
    }

    ConnectorException notStarted(StreamKey key) {
        return new ConnectorException(ErrorKind.FAILED, RunnerCode.LEDGER003, store.describe() + " has no stream "
                + key.stream() + " of run " + key.runId(), "the runner must record the stream's start first; "
                + "report this as a bug");
    }

    /** Whether the run this process runs is new to the ledger (no process before this one may have run it). */
    boolean fresh() {
        return fresh;
    }

    /** The unfinished runs of the spec the run found when it began, when it looked. */
    Optional<java.util.Set<String>> unfinishedEarlier() {
        return unfinishedEarlier;
    }

    /** The change feeds' positions this ledger keeps. */
    public FeedLedger feeds() {
        return feeds;
    }

    /** The leases of joined runs' partitions. */
    public ClaimLedger claims() {
        return claims;
    }
}
