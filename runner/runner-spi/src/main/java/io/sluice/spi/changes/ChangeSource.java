package io.sluice.spi.changes;

import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;

import java.util.List;

/**
 * A source's ability to follow its table's row changes after the copy ({@code changes:}; {@link io.sluice.spi.read.Source#changes()}).
 * The group operations take the members of one feed (the change sources of the streams that follow it, this one
 * among them), as the source's connector handed them out: a connector may rely on them being its own.
 */
public interface ChangeSource {
    /** The feed's name (for PostgreSQL its slot's): the ledger keeps its position under it. */
    String feed();

    /**
     * Checks, before anything is copied, that this source's change feed can start or go on: the source's settings
     * (e.g. PostgreSQL's {@code wal_level}), the user's privileges, a key on every table, the feed itself when
     * {@code established} (it must still exist and hold the changes since the recorded position).
     */
    void checkChanges(boolean established) throws ConnectorException;

    /**
     * Creates the change feed for {@code members}, replacing one left by a copy that never finished, and exports the
     * snapshot it starts at ({@link SharedSnapshot#changesFrom}), after taking what keeps each table from changing
     * under it: the copy read in it and the feed meet exactly.
     */
    SharedSnapshot startChanges(List<ChangeSource> members) throws ConnectorException;

    /**
     * Of {@code members}, those whose tables the feed does not carry yet: tables a pattern picked up after the feed
     * started. A run that only applies changes copies them first, in a snapshot taken after {@link #joinChanges} made
     * the feed carry them, then replays the changes up to then over the copy. Empty: every table is carried.
     */
    List<ChangeSource> newToChanges(List<ChangeSource> members) throws ConnectorException;

    /**
     * Makes the feed carry the tables of {@code members} ({@link #newToChanges}) from now on, or refuses saying what
     * the user must do; a snapshot exported afterwards sees every change the feed does not send.
     */
    void joinChanges(List<ChangeSource> members) throws ConnectorException;

    /**
     * Opens the change feed of {@code members} at {@code from} (a position the ledger recorded): the transactions that
     * end after it, of their tables.
     */
    ChangeFeed openChanges(List<ChangeSource> members, String from) throws ConnectorException;
}
