package io.sluice.spi.read;

import io.sluice.spi.error.ConnectorException;

import java.util.Optional;

/** A source's ability to load incrementally by a cursor ({@link Source#cursorReads()}). */
@FunctionalInterface
public interface CursorReads {
    /**
     * The highest value of {@code cursor} (a column or expression of the source) as text the source reads back in a
     * {@link RowWindow}; empty when the source holds no rows.
     */
    Optional<String> highestCursor(String cursor) throws ConnectorException;
}
