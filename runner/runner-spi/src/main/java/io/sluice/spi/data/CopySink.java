package io.sluice.spi.data;

import io.sluice.spi.error.ConnectorException;

/** Where a reader sends a PostgreSQL COPY stream (header, tuples, trailer) in the agreed {@link CopyFormat}. */
@FunctionalInterface
public interface CopySink {
    /** Takes {@code length} bytes; the sink does not keep a reference to {@code buffer} after returning. */
    void write(byte[] buffer, int offset, int length) throws ConnectorException;

    /**
     * Takes {@code length} bytes that end where a tuple ends and hold {@code rows} whole tuples (after what is left of
     * the stream's header, in a first write): a sink that must know where tuples are (one that sets refused rows
     * aside) need not look for them. By default the same as {@link #write}.
     */
    default void writeRows(byte[] buffer, int offset, int length, int rows) throws ConnectorException {
        write(buffer, offset, length);
    }
}
