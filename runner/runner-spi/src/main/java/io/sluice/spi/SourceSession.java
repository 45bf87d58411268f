package io.sluice.spi;

/** What the readers of one stream share, such as an exported snapshot. Closed after every reader finished. */
public interface SourceSession extends AutoCloseable {
    /** For plans and the ledger, e.g. {@code snapshot 00000003-0000001B-1} or {@code none}. */
    String snapshotMode();

    /** Opens a reader; may be called from several threads at once. */
    PartitionReader openReader(SourcePartition partition, SourceProjection projection) throws ConnectorException;

    /**
     * The digest of a partition's rows as read through {@code projection} (casts included), in this session's
     * snapshot, computed where the data lives. Empty when the source cannot compute it at that level.
     */
    default java.util.Optional<Digest> digest(SourcePartition partition, SourceProjection projection,
                                              Digest.Level level) throws ConnectorException {
        return java.util.Optional.empty();
    }

    @Override
    void close();
}
