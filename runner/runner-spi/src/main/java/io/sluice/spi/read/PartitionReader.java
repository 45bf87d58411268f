package io.sluice.spi.read;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;

/** Reads one partition as a complete COPY stream. Used by one thread; {@link #cancel()} may come from another. */
public interface PartitionReader extends AutoCloseable {
    /**
     * Streams the whole partition (header, tuples, trailer) into {@code sink} and returns the number of rows read.
     * Memory must stay bounded: pass on bytes as they come, never hold the partition.
     */
    long transferTo(CopySink sink) throws ConnectorException;

    /**
     * As {@link #transferTo(CopySink)}, told what to do with a row that cannot be loaded: a reader that finds a bad
     * value before it is sent (a narrowing, a length, a NUL byte) sets its row aside with {@link BadRows#reject} when
     * {@link BadRows#setsAside()}, and returns the rows it sent. The default finds nothing: the target's server does.
     */
    default long transferTo(CopySink sink, BadRows badRows) throws ConnectorException {
        java.util.Objects.requireNonNull(badRows, "badRows is null");
        return transferTo(sink);
    }

    /** Stops a running transfer soon; the transfer then fails. Never throws. */
    void cancel();

    @Override
    void close();
}
