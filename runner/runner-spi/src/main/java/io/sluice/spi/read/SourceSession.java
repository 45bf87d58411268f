package io.sluice.spi.read;

import io.sluice.spi.data.Digest;
import io.sluice.spi.error.ConnectorException;

/** What the readers of one stream share, such as an exported snapshot. Closed after every reader finished. */
public interface SourceSession extends AutoCloseable {
    /** For plans and the ledger, e.g. {@code snapshot 00000003-0000001B-1} or {@code none}. */
    String snapshotMode();

    /** Opens a reader; may be called from several threads at once. */
    PartitionReader openReader(SourcePartition partition, SourceProjection projection) throws ConnectorException;

    /**
     * Readers for one worker, which reads its partitions one after another. Connectors that connect per reader
     * override this to keep the connection between partitions; the default opens each reader on its own.
     */
    default PartitionReaders openReaders(SourceProjection projection) {
        java.util.Objects.requireNonNull(projection, "projection is null");
        return new PartitionReaders() {
            @Override
            public PartitionReader open(SourcePartition partition) throws ConnectorException {
                return openReader(partition, projection);
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * The digest of a partition's rows as read through {@code projection} (casts included), in this session's
     * snapshot, computed where the data lives. Empty when the source cannot compute it at that level.
     */
    default java.util.Optional<Digest> digest(SourcePartition partition, SourceProjection projection,
                                              Digest.Level level) throws ConnectorException {
        return java.util.Optional.empty();
    }

    /** Listing a partition's rows by key for {@code sluice compare}; empty when the source cannot. */
    default java.util.Optional<SourceRows> rows() {
        return java.util.Optional.empty();
    }

    @Override
    void close();
}
