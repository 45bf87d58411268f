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
     * Commits the partition's rows together with its ledger row, in one transaction: either both are in the target
     * or neither. Targets with a ledger override this; the default is for targets without one.
     */
    default void commit(io.sluice.spi.ledger.PartitionDone done) throws ConnectorException {
        throw new ConnectorException(ErrorKind.FAILED, SpiCode.SPI003, "this target keeps no run ledger",
                "set ledger: off in the spec");
    }

    /** Cancels an open COPY and rolls back, leaving no connection locked. Never throws. */
    void abort();

    @Override
    void close();
}
