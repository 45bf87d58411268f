package io.sluice.spi;

/** Where a reader sends a PostgreSQL COPY stream (header, tuples, trailer) in the agreed {@link CopyFormat}. */
@FunctionalInterface
public interface CopySink {
    /** Takes {@code length} bytes; the sink does not keep a reference to {@code buffer} after returning. */
    void write(byte[] buffer, int offset, int length) throws ConnectorException;
}
