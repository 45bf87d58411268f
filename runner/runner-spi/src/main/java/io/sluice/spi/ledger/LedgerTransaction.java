package io.sluice.spi.ledger;

import io.sluice.spi.error.ConnectorException;

import java.util.List;
import java.util.Optional;

/**
 * Reads and writes of ledger rows inside one open transaction of the target's database; nothing is visible to others
 * before it commits. A locked row stays locked until the transaction ends: another transaction locking it waits, then
 * reads it as committed. Used by one thread.
 */
public interface LedgerTransaction {
    /** Adds the stream's row; false, writing nothing, when the run has a row for that stream already. */
    boolean insertStream(LedgerStream stream) throws ConnectorException;

    /** The stream's row, locked. */
    Optional<LedgerStream> lockStream(StreamKey key) throws ConnectorException;

    /** Overwrites the stream's row; its partition counts are the store's and are not written. */
    void updateStream(LedgerStream stream) throws ConnectorException;

    /** The stream's partitions as {@link LedgerStore#partitions} orders them. */
    List<LedgerPartition> partitions(StreamKey key) throws ConnectorException;

    /** The partition's row, locked. */
    Optional<LedgerPartition> lockPartition(StreamKey key, String partitionId) throws ConnectorException;

    /** Adds the partitions' rows, or overwrites those the stream has already (by partition id). */
    void writePartitions(StreamKey key, List<LedgerPartition> partitions) throws ConnectorException;

    /**
     * The store's clock, the same for every process that uses the store (for PostgreSQL the server's), which leases
     * are measured by.
     */
    java.time.Instant now() throws ConnectorException;

    /**
     * The first planned partition in plan order that no lease holds at {@code now} (never claimed, or its lease
     * ended before), locked; partitions other transactions hold locked are skipped, not waited for, so processes
     * claiming at once each get another one. Empty when there is none.
     */
    Optional<LedgerPartition> lockNextClaimable(StreamKey key, java.time.Instant now) throws ConnectorException;

    /** Adds one attempt's row. */
    void insertAttempt(AttemptRecord attempt) throws ConnectorException;

    /** The marks of a stream of a run, by name. */
    java.util.Map<String, String> marks(StreamKey key) throws ConnectorException;

    /**
     * {@link #lockStream} and then {@link #marks}: the stream's marks with its row locked to the transaction's end;
     * empty when the stream has no row. A store may answer both with one statement.
     */
    default Optional<java.util.Map<String, String>> lockedMarks(StreamKey key) throws ConnectorException {
        if (lockStream(key).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(marks(key));
    }

    /**
     * Sets a named value a stream of a run keeps besides its partitions (a table it created, a shadow table, how far
     * an incremental load read), overwriting one of that name.
     */
    void writeMark(StreamKey key, String name, String value) throws ConnectorException;

    /**
     * The rows of change feeds' positions, for a store that keeps them (a target that applies changes); empty for one
     * that does not.
     */
    default Optional<ChangeFeedRows> changeFeedRows() {
        return Optional.empty();
    }
}
