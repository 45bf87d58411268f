package io.sluice.connector.postgres.read;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns ascending boundary values of a key into half-open ranges: {@code k < b1}, {@code k >= b1 AND k < b2}, ...,
 * {@code k >= bn}, plus {@code k IS NULL}. The outer ranges are open, so values beyond the planned minimum and
 * maximum (new rows, infinities, NaN, which sorts above every number) still land in exactly one range.
 */
public final class KeyBoundaries {
    /** Beyond this many partitions, estimates are spread evenly instead of asked of the planner one by one. */
    private static final int EXPLAIN_LIMIT = 256;

    private KeyBoundaries() {
    }

    static List<PgPartition> partitions(String method, PlanContext context, PartitionKey key, List<String> boundaries)
            throws SQLException {
        List<Optional<String>> conditions = new ArrayList<>();
        String k = key.expression();
        if (boundaries.isEmpty()) {
            conditions.add(Optional.of(k + " IS NOT NULL"));
        } else {
            conditions.add(Optional.of(k + " < " + key.literal(boundaries.get(0))));
            for (int i = 1; i < boundaries.size(); i++) {
                conditions.add(Optional.of(k + " >= " + key.literal(boundaries.get(i - 1)) + " AND " + k + " < "
                        + key.literal(boundaries.get(i))));
            }
            conditions.add(Optional.of(k + " >= " + key.literal(boundaries.get(boundaries.size() - 1))));
        }
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < conditions.size(); i++) {
            ids.add(method + ":" + (i + 1) + "/" + conditions.size());
        }
        if (!key.notNull()) {
            conditions.add(Optional.of(key.isNull()));
            ids.add(method + ":null");
        }
        return withEstimates(context, key, ids, conditions);
    }

    static List<PgPartition> withEstimates(PlanContext context, PartitionKey key, List<String> ids,
                                           List<Optional<String>> conditions)
            throws SQLException {
        String from = context.relation().fromClause();
        boolean ask = conditions.size() <= EXPLAIN_LIMIT;
        RowEstimator.Estimate even = context.total().scaled(1.0 / Math.max(1, conditions.size()));
        List<PgPartition> partitions = new ArrayList<>();
        for (int i = 0; i < conditions.size(); i++) {
            RowEstimator.Estimate estimate = ask ? context.estimator().estimate(from, conditions.get(i)) : even;
            partitions.add(PgPartition.of(ids.get(i), from, conditions.get(i), estimate.rows(), estimate.bytes(),
                    key.portable()));
        }
        return partitions;
    }
}
