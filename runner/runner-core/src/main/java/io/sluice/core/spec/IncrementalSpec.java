package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.read.IncrementalMode;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code incremental:}, one of three kinds: by {@code cursor}, each successful run records the highest
 * cursor value it read and the next run reads only the rows above it (and up to the highest value when it plans);
 * by {@code new-files}, a run skips the files (partitions) an earlier successful run loaded, same name, size and
 * modification time; by {@code new-snapshots}, a run of an Iceberg or Delta table loads only the data files the
 * table's versions since the last successful run's added.
 *
 * @param cursor a column or SQL expression of the source whose values only grow (an updated_at, an id)
 */
public record IncrementalSpec(java.util.Optional<String> cursor, IncrementalMode mode, Position position) {
    public IncrementalSpec {
        requireNonNull(cursor, "cursor is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(position, "position is null");
        if (cursor.isPresent() != (mode == IncrementalMode.CURSOR)) {
            throw new IllegalArgumentException("a cursor goes with incremental by cursor, and only with it");
        }
    }

    public boolean newFiles() {
        return mode == IncrementalMode.NEW_FILES;
    }

    public boolean newSnapshots() {
        return mode == IncrementalMode.NEW_SNAPSHOTS;
    }
}
