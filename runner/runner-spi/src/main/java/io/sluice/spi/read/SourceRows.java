package io.sluice.spi.read;

import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;

import java.util.List;

/**
 * A source session's ability to list a partition's rows for {@code sluice compare}, in the session's snapshot, each
 * value rendered as the target stores it (as its digest renders it), computed where the data lives.
 * {@code keyColumns} are positions in the projection of the key's columns, in key order; empty for a table without a
 * key (each row's key is then the text of the whole row).
 */
public interface SourceRows {
    /** The hashes these rows can be compared by, at least one. */
    java.util.Set<RowHash> hashes();

    /** The partition's count and CHECKSUM, by {@code hash}. */
    Digest digest(SourcePartition partition, SourceProjection projection, RowHash hash) throws ConnectorException;

    /**
     * The rows of {@code partitions} (disjoint; one, or every partition of a stream whose target cannot select one
     * partition's rows) in {@code buckets} ({@link Buckets#ALL}: every row), together, ordered as {@link HashedRows}
     * says. One listing at a time per session: a source reading in one snapshot may hold a connection for it.
     */
    HashedRows list(List<SourcePartition> partitions, SourceProjection projection, List<Integer> keyColumns,
                    Buckets buckets, RowHash hash) throws ConnectorException;

    /**
     * The CHECKSUM digest of the partition's rows in each of {@code count} buckets (index: bucket), in one pass: they
     * add up to the partition's digest, and only the buckets whose digests differ need listing.
     */
    List<Digest> bucketDigests(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns,
                               int count, RowHash hash) throws ConnectorException;
}
