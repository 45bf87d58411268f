package io.sluice.spi;

import static java.util.Objects.requireNonNull;

/**
 * What a source plans for: the distribution, how many readers run at once ({@code degree} &gt; 0, already resolved
 * from negative values) and about how many rows one partition should hold (the spec's {@code batch-size}), which
 * only the methods a source lists in {@link SourceCapabilities#rowsPerPartitionMethods()} follow.
 */
public record PlanRequest(Distribution distribution, int degree, long rowsPerPartition) {
    public PlanRequest {
        requireNonNull(distribution, "distribution is null");
        if (degree <= 0) {
            throw new IllegalArgumentException("degree must be positive: " + degree);
        }
        if (rowsPerPartition <= 0) {
            throw new IllegalArgumentException("rowsPerPartition must be positive: " + rowsPerPartition);
        }
    }

    /**
     * The old name of {@link #rowsPerPartition()}.
     *
     * @deprecated it never was a batch of a copy, only the size of a partition: use {@link #rowsPerPartition()}
     */
    @Deprecated(since = "0.1.0")
    public long batchSizeRows() {
        return rowsPerPartition;
    }
}
