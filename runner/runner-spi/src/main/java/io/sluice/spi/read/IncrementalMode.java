package io.sluice.spi.read;

/** How a source can load a stream incrementally ({@link io.sluice.spi.connector.SourceCapabilities#incrementalModes()}). */
public enum IncrementalMode {
    /**
     * {@code incremental: { cursor: ... }}: it plans a {@link RowWindow} and answers
     * {@link CursorReads#highestCursor}.
     */
    CURSOR,
    /**
     * {@code incremental: { new-files: true }}: its plans of files give one partition per file, each with a
     * {@link SourcePartition#version()} (size and modification time), so the runner skips files loaded before.
     */
    NEW_FILES,
    /**
     * {@code incremental: { new-snapshots: true }}: its {@link Source#tableVersions()} pins a table version and
     * tells which partitions hold rows the versions since the last run's added.
     */
    NEW_SNAPSHOTS
}
