package io.sluice.core.plan;

/**
 * How a run asks to be planned.
 *
 * @param joined      for one of several processes sharing the run's partitions through the ledger ({@code --join})
 * @param fullRefresh incremental streams read every row this once, ignoring their high-water marks
 *                    ({@code --full-refresh})
 */
public record PlanOptions(boolean joined, boolean fullRefresh) {
    public static final PlanOptions DEFAULT = new PlanOptions(false, false);
}
