package io.sluice.spi.changes;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A change feed as the source holds it now (for PostgreSQL: its replication slot), for status and plan.
 *
 * @param exists        whether the source still has it
 * @param active        whether a session reads it now (a run following it)
 * @param health        the source's word for what it keeps (PostgreSQL's {@code wal_status}: reserved, extended,
 *                      unreserved, lost)
 * @param confirmed     the position confirmed to it (changes before it are forgotten)
 * @param behindBytes   how far the source is ahead of {@code confirmed}
 * @param retainedBytes what the feed keeps from being recycled on the source (WAL since its restart point)
 * @param warnAboveBytes the spec's limit past which {@code sluice plan} and {@code status} warn about
 *                       {@code retainedBytes}
 */
public record ChangeFeedState(String feed, boolean exists, boolean active, String health,
                             Optional<String> confirmed, long behindBytes, long retainedBytes, long warnAboveBytes) {
    public ChangeFeedState {
        requireNonNull(feed, "feed is null");
        requireNonNull(health, "health is null");
        requireNonNull(confirmed, "confirmed is null");
    }

    /** Whether the feed keeps more of the source's log than the spec allows before warning. */
    public boolean retainsTooMuch() {
        return exists && retainedBytes > warnAboveBytes;
    }

    public static ChangeFeedState gone(String feed) {
        return new ChangeFeedState(feed, false, false, "", Optional.empty(), 0, 0, Long.MAX_VALUE);
    }
}
