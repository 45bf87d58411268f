package io.sluice.spi.write;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerWork;

import java.util.List;
import java.util.Optional;

/**
 * A target's ability to load in one transaction that empties it first ({@link PlannedLoad#replacingLoads()}), for targets
 * whose factory declares {@link io.sluice.spi.connector.TargetCapabilities#replacesInOneTransaction()}.
 */
@FunctionalInterface
public interface ReplacingLoads {
    /**
     * Opens a transaction that empties the target and writes the partitions of one worker. With {@code first}, that
     * ledger work runs in the transaction before the target is emptied, and the target is emptied only when it
     * answers true (false: the ledger says this run emptied it already). {@code expectedBytes} is what the plan
     * expects the load to bring ({@link Long#MAX_VALUE} when unknown): a target may empty a small load's table more
     * cheaply when it is empty already.
     */
    ReplacingTransaction open(List<Column> columns, CopyFormat format, Optional<LedgerWork<Boolean>> first,
                              long expectedBytes) throws ConnectorException;
}
