package io.sluice.spi.ledger;

import io.sluice.spi.error.ConnectorException;

/**
 * The runner's reads and writes of ledger rows inside one transaction, handed to whoever owns that transaction (the
 * store, or a target's writer). Throwing rolls the whole transaction back, the target's rows with it.
 */
@FunctionalInterface
public interface LedgerWork<T> {
    T apply(LedgerTransaction transaction) throws ConnectorException;
}
