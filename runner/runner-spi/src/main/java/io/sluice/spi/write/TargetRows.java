package io.sluice.spi.write;

import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceRows;

import java.util.List;
import java.util.Optional;

/**
 * A target's ability to list its table's rows for {@code sluice compare}, rendered as its digest renders them.
 * {@code predicate}: a partition's {@link SourcePartition#portablePredicate()}, when given; {@code keyColumns}:
 * positions in {@code columns} of the key's columns, empty when the whole row is the key.
 */
public interface TargetRows extends AutoCloseable {
    /**
     * These rows as of one moment: every later statement of the returned rows reads one snapshot, taken now, until
     * it is closed, so writes meanwhile show no phantom differences. A target that cannot pin returns itself (each
     * statement then sees the table as of its own start).
     */
    default TargetRows pinned() throws ConnectorException {
        return this;
    }

    /** Ends what {@link #pinned} holds; nothing for rows that hold nothing. Never throws. */
    @Override
    default void close() {
    }

    /** The hashes these rows can be compared by, at least one. */
    java.util.Set<RowHash> hashes();

    /**
     * The rows' count and checksum over {@code columns} by {@code hash}, those {@code predicate} selects when given.
     */
    Digest digest(List<Column> columns, Optional<String> predicate, Digest.Level level, RowHash hash)
            throws ConnectorException;

    /** The names of the target table's primary key columns in key order; empty when it has none. */
    List<String> primaryKey() throws ConnectorException;

    /** The rows in {@code buckets}, ordered as {@link HashedRows} says. */
    HashedRows list(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns, Buckets buckets,
                    RowHash hash) throws ConnectorException;

    /** As {@link SourceRows#bucketDigests}, over the rows {@code predicate} selects. */
    List<Digest> bucketDigests(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns, int count,
                               RowHash hash) throws ConnectorException;
}
