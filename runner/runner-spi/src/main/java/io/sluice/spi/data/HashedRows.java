package io.sluice.spi.data;

import io.sluice.spi.error.ConnectorException;

/**
 * Rows streamed in the order compare merges them: by key, each key value's text compared in Unicode code point order
 * (what PostgreSQL's {@code COLLATE "C"} gives on UTF-8), shorter lists first on a tie. Never buffered whole.
 */
public interface HashedRows extends AutoCloseable {
    /** The next row, or {@code null} after the last. */
    HashedRow next() throws ConnectorException;

    @Override
    void close();
}
