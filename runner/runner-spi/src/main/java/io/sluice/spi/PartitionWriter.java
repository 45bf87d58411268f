package io.sluice.spi;

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
     * Runs {@code withRows} in the partition's transaction after the COPY ended, then commits: the ledger rows it
     * writes are in the target together with the partition's rows, or neither is. When it throws, everything rolls
     * back and the exception is rethrown. Targets with a ledger override this; the default is for targets without one.
     */
    default void commit(io.sluice.spi.ledger.LedgerWork<?> withRows) throws ConnectorException {
        throw new ConnectorException(ErrorKind.FAILED, SpiCode.SPI003, "this target keeps no run ledger",
                "set ledger: off in the spec");
    }

    /** Cancels an open COPY and rolls back, leaving no connection locked. Never throws. */
    void abort();

    @Override
    void close();
}
