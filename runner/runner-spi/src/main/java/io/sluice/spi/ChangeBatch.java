package io.sluice.spi;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Whole source transactions read from a change feed, in commit order, to apply in one target transaction.
 *
 * @param end          the feed's position after the last transaction (for PostgreSQL its commit's end LSN): what
 *                     the ledger records with the applied rows, and what is confirmed to the source afterwards
 * @param transactions how many source transactions ended in this batch
 * @param partial      the batch ends inside a source transaction too big for one batch: its changes are applied
 *                     without committing, and the transaction's next batch continues the same target transaction;
 *                     {@code end} is then the last whole transaction's end, the position nothing past is committed
 */
public record ChangeBatch(List<RowChange> changes, String end, int transactions, boolean partial) {
    /** Whole transactions only. */
    public ChangeBatch(List<RowChange> changes, String end, int transactions) {
        this(changes, end, transactions, false);
    }

    public ChangeBatch {
        changes = List.copyOf(requireNonNull(changes, "changes is null"));
        requireNonNull(end, "end is null");
        if (transactions < 0) {
            throw new IllegalArgumentException("transactions must not be negative: " + transactions);
        }
    }

    public boolean isEmpty() {
        return transactions == 0 && changes.isEmpty();
    }
}
