package io.sluice.spi.ledger;

import io.sluice.spi.ConnectorException;

import java.util.List;
import java.util.Optional;

/**
 * The run ledger a target keeps next to the data (for PostgreSQL: tables in a {@code sluice} schema). It makes
 * partitions exactly-once: a partition's rows and its ledger row commit in one transaction
 * ({@link io.sluice.spi.PartitionWriter#commit(PartitionDone)}), so after a crash every partition is either in the
 * target and marked done, or absent. Methods other than that commit run in their own short transactions.
 * Thread-safe.
 */
public interface RunLedger {
    /** The ledger's format version; a newer release migrates older ledgers in {@link #ensureReady()}. */
    int VERSION = 1;

    /** Creates or migrates the ledger's schema and tables; idempotent and safe to race. */
    void ensureReady() throws ConnectorException;

    /** Records that a stream of a run starts, or starts again on resume (attempt count grows). */
    void startStream(LedgerStream stream) throws ConnectorException;

    /** The stream of a run as recorded, if the run got that far. */
    Optional<LedgerStream> findStream(String runId, String stream) throws ConnectorException;

    /** Every recorded stream of runs of this spec, newest first, at most {@code limit} runs. */
    List<LedgerStream> streamsOfSpec(String specName, int limit) throws ConnectorException;

    /** Every recorded stream of this run. */
    List<LedgerStream> streamsOfRun(String runId) throws ConnectorException;

    /** Stores a stream's planned partitions once (state {@code planned}); later calls for the same run add none. */
    void recordPlan(String runId, String stream, List<LedgerPartition> partitions) throws ConnectorException;

    /** The partitions of a stream of a run in plan order, with their states. */
    List<LedgerPartition> partitions(String runId, String stream) throws ConnectorException;

    /**
     * Empties the target table and records that this run's stream did, in one transaction. Returns false, and
     * empties nothing, when the run's stream was emptied before (a resumed run never truncates again).
     */
    boolean truncateOnce(String runId, String stream) throws ConnectorException;

    /** Records one failed or cancelled attempt of a partition (its rows were rolled back). */
    void recordAttempt(AttemptRecord attempt) throws ConnectorException;

    /** Marks a stream of a run finished: {@code done}, {@code failed} or {@code interrupted}. */
    void finishStream(String runId, String stream, LedgerStream.State state, long rows, Optional<String> error)
            throws ConnectorException;
}
