package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;

import io.sluice.spi.read.PlanRequest;

import static java.util.Objects.requireNonNull;

/** What a partition planner works with: the catalog connection, the source, the request and the whole estimate. */
public record PlanContext(PostgresCatalog catalog, SourceRelation relation, PlanRequest request, RowEstimator estimator,
                   RowEstimator.Estimate total) {
    public PlanContext {
        requireNonNull(catalog, "catalog is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(request, "request is null");
        requireNonNull(estimator, "estimator is null");
        requireNonNull(total, "total is null");
    }

    /**
     * About rows-per-partition rows per partition, never fewer partitions than the degree. The planners that call
     * this are the methods {@link PostgresConnectorFactory#SOURCE_CAPABILITIES} lists as following rows per partition.
     */
    int partitionsWanted() {
        long rows = Math.max(total.rows(), 0);
        long byRows = (rows + request.rowsPerPartition() - 1) / request.rowsPerPartition();
        return (int) Math.min(Math.max(request.degree(), byRows), PartitionPlanner.MAX_PARTITIONS);
    }
}
