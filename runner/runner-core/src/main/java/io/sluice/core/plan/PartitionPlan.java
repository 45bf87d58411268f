package io.sluice.core.plan;

import io.sluice.spi.SourcePartition;

import static java.util.Objects.requireNonNull;

/** A partition in run order (largest first) with the statement its reader runs. */
public record PartitionPlan(int index, SourcePartition partition, String readStatement) {
    public PartitionPlan {
        requireNonNull(partition, "partition is null");
        requireNonNull(readStatement, "readStatement is null");
    }
}
