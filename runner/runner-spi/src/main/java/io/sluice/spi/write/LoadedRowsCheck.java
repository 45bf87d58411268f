package io.sluice.spi.write;

import io.sluice.spi.error.ConnectorException;

import java.util.Optional;

/**
 * What the runner checks once a load's rows are all written and before they go live ({@code verify: compare}): a
 * replace's new table before the swap, a one-transaction truncate before its commit. A target calls it at most once
 * per {@link PlannedLoad#finish(io.sluice.spi.ledger.LoadMarks, LoadedRowsCheck)} or
 * {@link ReplacingTransaction#commit(LoadedRowsCheck)}; when it throws, nothing more goes live and the load fails.
 */
@FunctionalInterface
public interface LoadedRowsCheck {
    /** Checks nothing. */
    LoadedRowsCheck NONE = staged -> { };

    /**
     * {@code staged}: the loaded rows where they wait to go live (the new table, or the open transaction's view of
     * the table); empty when they are live already, under the target's own name.
     */
    void check(Optional<TargetRows> staged) throws ConnectorException;
}
