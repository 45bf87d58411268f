package io.sluice.spi;

import io.sluice.spi.error.ConnectorException;

import java.util.List;

/**
 * A source session's ability to list a partition's rows for {@code sluice compare}, in the session's snapshot, each
 * value rendered as the target stores it (as its digest renders it), computed where the data lives.
 */
public interface SourceRows {
    /**
     * @param keyColumns positions in the projection of the key's columns, in key order; empty for a table without a
     *                   key (each row's key is then the text of the whole row)
     */
    HashedRows list(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns)
            throws ConnectorException;
}
