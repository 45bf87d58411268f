package io.sluice.spi.ledger;

import static java.util.Objects.requireNonNull;

/**
 * A planned partition as the ledger keeps it: enough to show it ({@code predicate}) and to restore it exactly on
 * resume ({@code checkpoint}, see {@link io.sluice.spi.SourcePartition#checkpoint()}; empty when the source cannot).
 */
public record LedgerPartition(int index, String partitionId, String predicate, String checkpoint, State state,
                              long rows, long bytes, int attempts) {
    public enum State { PLANNED, DONE }

    public LedgerPartition {
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(checkpoint, "checkpoint is null");
        requireNonNull(state, "state is null");
    }
}
