package io.sluice.core.plan;

import io.sluice.spi.ColumnPair;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How a stream's source columns meet its target's.
 *
 * @param copied  the pairs the copy reads and writes, in source order
 * @param leftOut pairs generated on both sides: the target computes its own values, so the copy neither reads nor
 *                writes them
 */
public record ColumnMappingPlan(List<ColumnPair> copied, List<ColumnPair> leftOut) {
    public ColumnMappingPlan {
        copied = List.copyOf(requireNonNull(copied, "copied is null"));
        leftOut = List.copyOf(requireNonNull(leftOut, "leftOut is null"));
    }
}
