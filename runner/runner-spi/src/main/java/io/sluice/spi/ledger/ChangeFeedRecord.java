package io.sluice.spi.ledger;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How far a spec's change feed got, as the ledger keeps it (one row per spec and feed, across runs).
 *
 * @param feed     the feed's name (for PostgreSQL the slot)
 * @param position while {@link State#COPYING}: where the feed starts (the copy's snapshot); while
 *                 {@link State#APPLYING}: the end of the last transaction applied, committed with its rows
 * @param runId    the run that wrote it last
 */
public record ChangeFeedRecord(String specName, String feed, State state, String position, String runId,
                               Optional<java.time.Instant> updatedAt) {
    public enum State {
        /** The feed exists; the initial copy in its snapshot is not finished. */
        COPYING,
        /** The copy is done; changes apply from {@code position} on. */
        APPLYING
    }

    public ChangeFeedRecord {
        requireNonNull(specName, "specName is null");
        requireNonNull(feed, "feed is null");
        requireNonNull(state, "state is null");
        requireNonNull(position, "position is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(updatedAt, "updatedAt is null");
    }

    public ChangeFeedRecord(String specName, String feed, State state, String position, String runId) {
        this(specName, feed, state, position, runId, Optional.empty());
    }

    public ChangeFeedRecord at(State newState, String newPosition, String newRunId) {
        return new ChangeFeedRecord(specName, feed, newState, newPosition, newRunId);
    }
}
