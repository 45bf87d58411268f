package io.sluice.spi.read;

import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;

import java.util.List;

/**
 * A source's ability to read one snapshot together with other streams' sources ({@link Source#snapshotGroup()}).
 * The members handed to {@link #exportSnapshot} are the group's own objects, as the connector handed them out.
 */
public interface SnapshotGroup {
    /** Members whose keys are equal read one connection and can share a snapshot. */
    Object key();

    /**
     * Exports one snapshot for {@code members}, all of this group (this one among them), after taking what keeps
     * each of their tables from changing under it; called once per run, before any of their streams starts.
     */
    SharedSnapshot exportSnapshot(List<SnapshotGroup> members) throws ConnectorException;

    /**
     * {@link Source#openSession(Consistency)} with SNAPSHOT, reading in {@code shared}, a snapshot
     * {@link #exportSnapshot} gave this group: the session holds nothing of its own, {@code shared} outlives it.
     */
    SourceSession openSession(SharedSnapshot shared) throws ConnectorException;
}
