package io.sluice.spi.read;

import static java.util.Objects.requireNonNull;

/**
 * What a source plans for: the distribution, how many readers run at once ({@code degree} &gt; 0, already resolved
 * from negative values), about how many rows one partition should hold (the spec's {@code batch-size}), which
 * only the methods a source lists in {@link io.sluice.spi.connector.SourceCapabilities#rowsPerPartitionMethods()} follow, and for an
 * incremental stream the window of rows to read (only for sources whose capabilities say they read windows): every
 * partition's condition must keep to it, checkpoints included, so a resumed run finishes the same window.
 *
 * @param filesApart the runner tells loaded partitions apart by the file each reads ({@code new-files},
 *                   {@code new-snapshots}): a source that reads files plans each file as a partition of its own, never
 *                   several small ones together
 */
public record PlanRequest(Distribution distribution, int degree, long rowsPerPartition,
                          java.util.Optional<RowWindow> window, boolean filesApart) {
    public PlanRequest {
        requireNonNull(distribution, "distribution is null");
        requireNonNull(window, "window is null");
        if (degree <= 0) {
            throw new IllegalArgumentException("degree must be positive: " + degree);
        }
        if (rowsPerPartition <= 0) {
            throw new IllegalArgumentException("rowsPerPartition must be positive: " + rowsPerPartition);
        }
    }

    public PlanRequest(Distribution distribution, int degree, long rowsPerPartition,
                       java.util.Optional<RowWindow> window) {
        this(distribution, degree, rowsPerPartition, window, false);
    }

    /** A plan of every row. */
    public PlanRequest(Distribution distribution, int degree, long rowsPerPartition) {
        this(distribution, degree, rowsPerPartition, java.util.Optional.empty());
    }
}
