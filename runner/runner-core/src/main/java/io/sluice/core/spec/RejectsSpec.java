package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import java.util.OptionalDouble;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * {@code rejects:}: rows that cannot be loaded go to {@code table} (in the target's database) instead of failing
 * their partition, until there are too many.
 *
 * @param table    the rejects table, as written (schema-qualified or not)
 * @param maxRows  the most rows the stream may set aside in a run; one more fails the run
 * @param maxRatio the largest share of the stream's rows read so far that may be set aside, judged at each
 *                 partition's commit
 * @param position where {@code rejects:} is written, for errors found later (plan time)
 */
public record RejectsSpec(String table, OptionalLong maxRows, OptionalDouble maxRatio, Position position) {
    public RejectsSpec {
        requireNonNull(table, "table is null");
        requireNonNull(maxRows, "maxRows is null");
        requireNonNull(maxRatio, "maxRatio is null");
        requireNonNull(position, "position is null");
        if (maxRows.isPresent() && maxRows.getAsLong() < 1) {
            throw new IllegalArgumentException("maxRows must be positive: " + maxRows.getAsLong());
        }
        if (maxRatio.isPresent() && !(maxRatio.getAsDouble() > 0 && maxRatio.getAsDouble() <= 1)) {
            throw new IllegalArgumentException("maxRatio must be in (0, 1]: " + maxRatio.getAsDouble());
        }
    }
}
