package io.sluice.spi;

/** Reads one partition as a complete COPY stream. Used by one thread; {@link #cancel()} may come from another. */
public interface PartitionReader extends AutoCloseable {
    /**
     * Streams the whole partition (header, tuples, trailer) into {@code sink} and returns the number of rows read.
     * Memory must stay bounded: pass on bytes as they come, never hold the partition.
     */
    long transferTo(CopySink sink) throws ConnectorException;

    /** Stops a running transfer soon; the transfer then fails. Never throws. */
    void cancel();

    @Override
    void close();
}
