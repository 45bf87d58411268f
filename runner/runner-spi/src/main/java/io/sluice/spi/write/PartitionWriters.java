package io.sluice.spi.write;

import io.sluice.spi.error.ConnectorException;

/**
 * The writers one worker opens one after another, each in its own transaction, so a connector can keep its
 * connection between partitions instead of connecting for each. Used by one thread; a writer it opened may still be
 * aborted from another.
 */
public interface PartitionWriters extends AutoCloseable {
    /** Opens the writer of the next partition; the previous writer must be closed first. */
    PartitionWriter open() throws ConnectorException;

    /** Releases what the writers kept (e.g. the worker's connection). Never throws. */
    @Override
    void close();
}
