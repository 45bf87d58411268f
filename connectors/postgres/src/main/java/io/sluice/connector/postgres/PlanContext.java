package io.sluice.connector.postgres;

import io.sluice.spi.PlanRequest;

import static java.util.Objects.requireNonNull;

/** What a partition planner works with: the catalog connection, the source, the request and the whole estimate. */
record PlanContext(PostgresCatalog catalog, SourceRelation relation, PlanRequest request, RowEstimator estimator,
                   RowEstimator.Estimate total) {
    PlanContext {
        requireNonNull(catalog, "catalog is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(request, "request is null");
        requireNonNull(estimator, "estimator is null");
        requireNonNull(total, "total is null");
    }

    /** About batch-size rows per partition, never fewer partitions than the degree. */
    int partitionsWanted() {
        long rows = Math.max(total.rows(), 0);
        long byBatch = (rows + request.batchSizeRows() - 1) / request.batchSizeRows();
        return (int) Math.min(Math.max(request.degree(), byBatch), PartitionPlanner.MAX_PARTITIONS);
    }
}
