package io.sluice.spi.write;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgeredCommit;

/**
 * Writes one partition in its own transaction. The reader feeds it through {@link #write}; then the runner calls
 * {@link #finish()} and {@link #commit()}, or {@link #abort()} on any failure. Used by one thread, except
 * {@link #abort()} which may come from another to stop a stuck write.
 */
public interface PartitionWriter extends CopySink, AutoCloseable {
    /** Ends the COPY and returns the rows the target took; nothing is visible until {@link #commit()}. */
    long finish() throws ConnectorException;

    void commit() throws ConnectorException;

    /**
     * Setting rows aside into the load's rejects table; present for a load whose request names one, empty (the
     * default) otherwise.
     */
    default java.util.Optional<WriterRejects> rejects() {
        return java.util.Optional.empty();
    }

    /**
     * The rows this writer set aside after {@link #finish()}: those the reader gave {@link WriterRejects#reject} and
     * those the target's server refused, which are not in {@link #finish()}'s count.
     */
    default long rejectedRows() {
        return 0;
    }

    /** The first few rows set aside, as "code: message", for reports; the rejects table has them all. */
    default java.util.List<String> rejectSample() {
        return java.util.List.of();
    }

    /** Of {@link #rejectedRows()}, those the server refused (rows the reader sent that did not load). */
    default long refusedRows() {
        return 0;
    }

    /**
     * Committing ledger rows together with the partition's rows, for a target with a ledger; empty (the default)
     * for targets without one.
     */
    default java.util.Optional<LedgeredCommit> ledgeredCommit() {
        return java.util.Optional.empty();
    }

    /** Cancels an open COPY and rolls back, leaving no connection locked. Never throws. */
    void abort();

    @Override
    void close();
}
