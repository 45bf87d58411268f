package io.sluice.spi.read;

import io.sluice.spi.error.ConnectorException;

import java.util.Set;

/**
 * A source that reads one version of a versioned table (an Iceberg snapshot, a Delta version), fixed when it was
 * planned ({@link Source#tableVersions()}): what the plan shows, and what an incremental {@code new-snapshots}
 * stream follows from run to run.
 */
public interface TableVersions {
    /** The pinned version as the plan shows it, e.g. {@code iceberg table s3://lake/orders at snapshot 42}. */
    String describePinned() throws ConnectorException;

    /** The pinned version as the ledger keeps it for the next run, e.g. {@code iceberg:42}. */
    String pinnedToken() throws ConnectorException;

    /**
     * The ids this source's partitions had at {@code loadedToken}'s version (an earlier {@link #pinnedToken()}): what
     * a done run loaded, so a partition of this plan whose id is not among them holds rows committed since. Refuses
     * (naming the version and what it did) when the versions in between did more than add rows: a delete, an
     * overwrite or a rewrite of files, which loading the new partitions alone would get wrong.
     */
    Set<String> loadedBy(String loadedToken) throws ConnectorException;
}
