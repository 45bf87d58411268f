package io.sluice.spi.write;

import io.sluice.spi.error.ConnectorException;

/**
 * A truncate load in one target transaction (see {@link PlannedLoad#replacingLoads()}): the transaction first
 * empties the target, then the writers it opens write one partition after another, and {@link #commit()} makes the
 * emptying and every partition visible at once. A writer's commit only records its partition. Used by one thread; a
 * writer it opened may still be aborted from another, which dooms the whole transaction.
 */
public interface ReplacingTransaction extends PartitionWriters {
    /** Whether the transaction emptied the target (false when the ledger says this run already did). */
    boolean truncated();

    /** Commits the emptying and every partition whose writer committed. */
    void commit() throws ConnectorException;

    /**
     * {@link #commit()}, calling {@code check} first with the rows as the transaction sees them where the target can
     * list them there; a check that throws leaves the transaction to roll back. The default checks after the commit.
     */
    default void commit(LoadedRowsCheck check) throws ConnectorException {
        commit();
        check.check(java.util.Optional.empty());
    }

    /** Rolls back unless committed, so the target keeps the rows it had. Never throws. */
    @Override
    void close();
}
