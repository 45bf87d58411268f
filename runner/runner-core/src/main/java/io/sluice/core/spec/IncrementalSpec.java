package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code incremental:}: each successful run records the highest {@code cursor} value it read, and the
 * next run reads only the rows above it (and up to the highest value when it plans).
 *
 * @param cursor a column or SQL expression of the source whose values only grow (an updated_at, an id)
 */
public record IncrementalSpec(String cursor, Position position) {
    public IncrementalSpec {
        requireNonNull(cursor, "cursor is null");
        requireNonNull(position, "position is null");
    }
}
