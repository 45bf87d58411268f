package io.sluice.spi.ledger;

import io.sluice.spi.error.ConnectorException;

/**
 * A writer's ability to commit ledger rows with its partition's rows ({@code PartitionWriter#ledgeredCommit()}),
 * for targets that keep the run ledger.
 */
@FunctionalInterface
public interface LedgeredCommit {
    /**
     * Runs {@code withRows} in the partition's transaction after the COPY ended, then commits: the ledger rows it
     * writes are in the target together with the partition's rows, or neither is. When it throws, everything rolls
     * back and the exception is rethrown.
     */
    void commit(LedgerWork<?> withRows) throws ConnectorException;
}
