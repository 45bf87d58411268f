package io.sluice.spi.ledger;

import io.sluice.spi.error.ConnectorException;

import java.util.List;

/**
 * Where a target keeps the run ledger's rows (for PostgreSQL: tables in a schema next to the data). A store keeps
 * rows and nothing more: what they mean and when they are written (a stream starts, its plan is kept once, a table is
 * emptied once per run, a partition is done at most once) is the runner's, the same for every target.
 *
 * <p>Rows are written through a {@link LedgerTransaction} and commit with it: a short transaction of the store's own
 * ({@link #inTransaction}), or one of the target's in which the runner's ledger work rides with data: a partition's
 * rows ({@link LedgeredCommit}), a truncation
 * ({@link LedgeredTruncate}), a load in one transaction
 * ({@code PlannedLoad.replacingLoads()}). So after a crash every partition is either in the target
 * and marked done, or absent. Thread-safe. The testkit's {@code LedgerStoreContractTest} checks an implementation.
 */
public interface LedgerStore {
    /**
     * The ledger's format version; a newer release migrates older ledgers in {@link #ensureReady()}. 2 added marks
     * ({@link LedgerTransaction#writeMark}), 3 partition claims ({@link PartitionClaim}), 4 indexes for
     * {@link #streamInRuns}, 5 rows set aside per partition, 6 change feeds ({@link ChangeFeedRecord}), 7 how far each table of a
     * feed got when its changes apply on several connections ({@link ChangeFeedRows#writeChangeFeedTables}).
     */
    int VERSION = 7;

    /** The ledger for people, e.g. {@code the run ledger in schema "sluice"}. No secrets. */
    String describe();

    /** Creates or migrates the ledger's tables in the target's dialect; idempotent and safe to race. */
    void ensureReady() throws ConnectorException;

    /**
     * Runs {@code work} in a short transaction of the store's own and commits what it wrote; when it throws, rolls
     * back and rethrows. The work may run again only if the caller calls again.
     */
    <T> T inTransaction(LedgerWork<T> work) throws ConnectorException;

    /** Every recorded stream of this run, in the order they started. Empty when the ledger was never created. */
    List<LedgerStream> streamsOfRun(String runId) throws ConnectorException;

    /** Every recorded stream of the newest {@code runs} runs of this spec, newest run first. */
    List<LedgerStream> streamsOfSpec(String specName, int runs) throws ConnectorException;

    /**
     * Stream {@code stream} as the newest {@code runs} runs of the spec that recorded it did, newest first, each with
     * whether its run is unfinished. One stream's rows: a run of thousands of streams asks this once per stream. The
     * default reads {@link #streamsOfSpec}; a store should answer it from an index.
     */
    default List<StreamInRun> streamInRuns(String specName, String stream, int runs) throws ConnectorException {
        java.util.Objects.requireNonNull(stream, "stream is null");
        List<LedgerStream> all = streamsOfSpec(specName, runs);
        java.util.Set<String> unfinished = new java.util.HashSet<>();
        all.stream().filter(s -> s.state() != LedgerStream.State.DONE).forEach(s -> unfinished.add(s.key().runId()));
        return all.stream().filter(s -> s.stream().equals(stream))
                .map(s -> new StreamInRun(s, unfinished.contains(s.key().runId()))).toList();
    }

    /**
     * The runs of the spec that have a stream not done (unfinished, or running now), by id, when the store can say
     * with one cheap read: a run asks once before its first stream, and when none but itself is unfinished its streams
     * skip {@link #streamInRuns}. Empty: the store cannot tell; each stream then asks for its own earlier runs.
     */
    default java.util.Optional<java.util.Set<String>> unfinishedRuns(String specName) throws ConnectorException {
        java.util.Objects.requireNonNull(specName, "specName is null");
        return java.util.Optional.empty();
    }

    /** The partitions of a stream of a run: planned ones in plan order, then unplanned ones by id. */
    List<LedgerPartition> partitions(StreamKey key) throws ConnectorException;

    /** The failed or cancelled attempts of a stream of a run, in the order they were recorded. */
    List<AttemptRecord> attempts(StreamKey key) throws ConnectorException;

    /** The marks of a stream of a run, by name ({@link LedgerTransaction#writeMark}). */
    java.util.Map<String, String> marks(StreamKey key) throws ConnectorException;

    /**
     * In a joined run: ends the sessions of the run's other processes that have held a lock on a partition row of
     * {@code key} for longer than {@code patience} while that partition has no live lease (not this process's,
     * {@code holder}). Such a lock is a process paused or cut off inside a ledger transaction (its commit, a claim, a
     * renewal): the rows it holds cannot be claimed, so without this every process would wait on it for ever. Returns
     * how many sessions it ended; a store that cannot tell does nothing.
     */
    default int endStalledLocks(StreamKey key, String holder, java.time.Duration patience) throws ConnectorException {
        java.util.Objects.requireNonNull(key, "key is null");
        java.util.Objects.requireNonNull(holder, "holder is null");
        java.util.Objects.requireNonNull(patience, "patience is null");
        return 0;
    }

    /**
     * How far each table of a change feed got beyond the feed's own position, by table (as the feed names it): what
     * a run that applied tables on several connections committed before it failed. Empty when none.
     */
    default java.util.Map<String, String> changeFeedTables(String specName, String feed) throws ConnectorException {
        java.util.Objects.requireNonNull(specName, "specName is null");
        java.util.Objects.requireNonNull(feed, "feed is null");
        return java.util.Map.of();
    }

    /** The change feeds this spec's runs recorded, by feed name. Empty when none, or the ledger keeps none. */
    default List<ChangeFeedRecord> changeFeeds(String specName) throws ConnectorException {
        java.util.Objects.requireNonNull(specName, "specName is null");
        return List.of();
    }
}
