package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.IncrementalMode;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code incremental:}, one of two kinds: by {@code cursor}, each successful run records the highest
 * cursor value it read and the next run reads only the rows above it (and up to the highest value when it plans);
 * by {@code new-files}, a run skips the files (partitions) an earlier successful run loaded, same name, size and
 * modification time.
 *
 * @param cursor a column or SQL expression of the source whose values only grow (an updated_at, an id)
 */
public record IncrementalSpec(java.util.Optional<String> cursor, boolean newFiles, Position position) {
    public IncrementalSpec {
        requireNonNull(cursor, "cursor is null");
        requireNonNull(position, "position is null");
        if (cursor.isPresent() == newFiles) {
            throw new IllegalArgumentException("incremental is either by cursor or by new files");
        }
    }

    /** How the source must be able to load it. */
    public IncrementalMode mode() {
        return newFiles ? IncrementalMode.NEW_FILES : IncrementalMode.CURSOR;
    }
}
