package io.sluice.spi;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.LedgerWork;

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
     * Names the rows this writer sets aside: called once, right after the writer opened, for a load whose request
     * names a rejects table.
     */
    default void rejectsOf(RejectedRow.Origin origin) throws ConnectorException {
        java.util.Objects.requireNonNull(origin, "origin is null");
        throw new ConnectorException(ErrorKind.FAILED, SpiCode.SPI011, "this target sets no rows aside",
                "remove rejects: from the stream");
    }

    /**
     * Keeps {@code row}, which the reader set aside, to be written with the partition's rows (its rejects table),
     * in the same transaction. Only called for a load whose request names a rejects table.
     */
    default void reject(RejectedRow row) throws ConnectorException {
        java.util.Objects.requireNonNull(row, "row is null");
        throw new ConnectorException(ErrorKind.FAILED, SpiCode.SPI011, "this target sets no rows aside",
                "remove rejects: from the stream");
    }

    /**
     * The rows this writer set aside after {@link #finish()}: those the reader gave {@link #reject} and those the
     * target's server refused, which are not in {@link #finish()}'s count.
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
     * Runs {@code withRows} in the partition's transaction after the COPY ended, then commits: the ledger rows it
     * writes are in the target together with the partition's rows, or neither is. When it throws, everything rolls
     * back and the exception is rethrown. Targets with a ledger override this; the default is for targets without one.
     */
    default void commit(LedgerWork<?> withRows) throws ConnectorException {
        throw new ConnectorException(ErrorKind.FAILED, SpiCode.SPI003, "this target keeps no run ledger",
                "set ledger: off in the spec");
    }

    /** Cancels an open COPY and rolls back, leaving no connection locked. Never throws. */
    void abort();

    @Override
    void close();
}
