package io.sluice.spi.ledger;

import io.sluice.spi.error.ConnectorException;

import java.util.Optional;

/**
 * A ledger transaction's reads and writes of change feeds' positions ({@link LedgerTransaction#changeFeedRows()}), in
 * that transaction: a store keeps them when its target applies changes.
 */
public interface ChangeFeedRows {
    /** The spec's row for change feed {@code feed}, locked; empty when the feed never started. */
    Optional<ChangeFeedRecord> lockChangeFeed(String specName, String feed) throws ConnectorException;

    /** Writes (adds or overwrites) a change feed's row. */
    void writeChangeFeed(ChangeFeedRecord feed) throws ConnectorException;

    /**
     * Records, for each table given, the position up to which its changes are applied (committed with them), when a
     * feed's tables apply on several connections: the feed's own position moves once every table is there.
     */
    void writeChangeFeedTables(String specName, String feed, java.util.Map<String, String> positions)
            throws ConnectorException;

    /** Forgets every table position of a feed (its own position has passed them). */
    void deleteChangeFeedTables(String specName, String feed) throws ConnectorException;

    /** Removes a change feed's row (its feed was dropped); nothing when there is none. */
    void deleteChangeFeed(String specName, String feed) throws ConnectorException;
}
