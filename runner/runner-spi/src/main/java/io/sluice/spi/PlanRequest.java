package io.sluice.spi;

import static java.util.Objects.requireNonNull;

/**
 * What a source plans for: the distribution, how many readers run at once ({@code degree} &gt; 0, already resolved
 * from negative values) and about how many rows one partition should hold.
 */
public record PlanRequest(Distribution distribution, int degree, long batchSizeRows) {
    public PlanRequest {
        requireNonNull(distribution, "distribution is null");
        if (degree <= 0) {
            throw new IllegalArgumentException("degree must be positive: " + degree);
        }
        if (batchSizeRows <= 0) {
            throw new IllegalArgumentException("batchSizeRows must be positive: " + batchSizeRows);
        }
    }
}
