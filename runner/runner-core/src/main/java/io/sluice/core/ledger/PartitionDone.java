package io.sluice.core.ledger;

import io.sluice.spi.ledger.StreamKey;

import java.time.Instant;

import static java.util.Objects.requireNonNull;

/**
 * What a partition's commit records in the ledger, in the same transaction as its rows.
 *
 * @param holder in a joined run, the process that claimed the partition: the commit is refused when its lease went
 *               to another process meanwhile
 * @param rejected the rows it set aside ({@code rejects:}), which commit with it
 */
public record PartitionDone(StreamKey stream, String partitionId, long rows, long bytes, int attempts,
                            Instant startedAt, java.util.Optional<String> holder, long rejected) {
    public PartitionDone {
        requireNonNull(stream, "stream is null");
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(startedAt, "startedAt is null");
        requireNonNull(holder, "holder is null");
    }

    /** A partition that set no rows aside. */
    public PartitionDone(StreamKey stream, String partitionId, long rows, long bytes, int attempts,
                         Instant startedAt, java.util.Optional<String> holder) {
        this(stream, partitionId, rows, bytes, attempts, startedAt, holder, 0);
    }

    /** A partition of a run that is not joined. */
    public PartitionDone(StreamKey stream, String partitionId, long rows, long bytes, int attempts, Instant startedAt) {
        this(stream, partitionId, rows, bytes, attempts, startedAt, java.util.Optional.empty());
    }
}
