package io.sluice.spi.write;

import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;

import java.util.List;
import java.util.Optional;

/** A target's rejects tables, read back for {@code sluice rejects} ({@link Target#storedRejects()}). */
@FunctionalInterface
public interface StoredRejects {
    /**
     * The newest {@code limit} rows of stream {@code stream} (and of the tables its pattern expanded to, named
     * {@code <stream>.<schema>.<table>}) in the rejects table {@code table}, of run {@code runId} when given.
     */
    List<RejectedRow.Stored> rejectedRows(String table, String stream, Optional<String> runId, int limit)
            throws ConnectorException;
}
