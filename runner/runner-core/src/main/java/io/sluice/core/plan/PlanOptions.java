package io.sluice.core.plan;

import io.sluice.spi.write.LoadRequest;

import static java.util.Objects.requireNonNull;

/**
 * How a run asks to be planned.
 *
 * @param joined      for one of several processes sharing the run's partitions through the ledger ({@code --join})
 * @param fullRefresh incremental streams read every row this once, ignoring their high-water marks
 *                    ({@code --full-refresh})
 * @param scope       what of each load the run does ({@code --schema-only}: what the loads create, no rows;
 *                    {@code --data-only}: the rows, nothing created)
 */
public record PlanOptions(boolean joined, boolean fullRefresh, LoadRequest.Scope scope) {
    public static final PlanOptions DEFAULT = new PlanOptions(false, false, LoadRequest.Scope.ALL);

    public PlanOptions {
        requireNonNull(scope, "scope is null");
    }

    /** Every part of each load. */
    public PlanOptions(boolean joined, boolean fullRefresh) {
        this(joined, fullRefresh, LoadRequest.Scope.ALL);
    }
}
