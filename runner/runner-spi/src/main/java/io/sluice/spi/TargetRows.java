package io.sluice.spi;

import io.sluice.spi.error.ConnectorException;

import java.util.List;
import java.util.Optional;

/** A target's ability to list its table's rows for {@code sluice compare}, rendered as its digest renders them. */
public interface TargetRows {
    /** The names of the target table's primary key columns in key order; empty when it has none. */
    List<String> primaryKey() throws ConnectorException;

    /**
     * @param predicate  a partition's {@link io.sluice.spi.SourcePartition#portablePredicate()}, when given
     * @param keyColumns positions in {@code columns} of the key's columns; empty: the whole row is the key
     */
    HashedRows list(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns)
            throws ConnectorException;
}
