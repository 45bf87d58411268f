package io.sluice.spi.read;

import io.sluice.spi.error.ConnectorException;

/**
 * The readers one worker opens one after another, one partition at a time, so a connector can keep its connection
 * between partitions instead of connecting for each. Used by one thread; a reader it opened may still be cancelled
 * from another.
 */
public interface PartitionReaders extends AutoCloseable {
    /** Opens the reader of the next partition; the previous reader must be closed first. */
    PartitionReader open(SourcePartition partition) throws ConnectorException;

    /** Releases what the readers kept (e.g. the worker's connection). Never throws. */
    @Override
    void close();
}
