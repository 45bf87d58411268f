package io.sluice.spi.ledger;

import io.sluice.spi.error.ConnectorException;

/**
 * A target's ability to empty itself in a ledger transaction ({@code PlannedLoad#ledgeredTruncate()}), for targets that
 * keep the run ledger.
 */
@FunctionalInterface
public interface LedgeredTruncate {
    /**
     * Empties the target for a {@code truncate} load in a transaction in which {@code first} runs before anything
     * changes: when it answers false (the ledger says this run emptied the target already) nothing changes; otherwise
     * the ledger rows it wrote commit together with the truncation. Returns whether the target was emptied.
     */
    boolean truncate(LedgerWork<Boolean> first) throws ConnectorException;
}
