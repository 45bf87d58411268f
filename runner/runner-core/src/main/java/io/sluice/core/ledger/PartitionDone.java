package io.sluice.core.ledger;

import io.sluice.spi.ledger.StreamKey;

import java.time.Instant;

import static java.util.Objects.requireNonNull;

/** What a partition's commit records in the ledger, in the same transaction as its rows. */
public record PartitionDone(StreamKey stream, String partitionId, long rows, long bytes, int attempts,
                            Instant startedAt) {
    public PartitionDone {
        requireNonNull(stream, "stream is null");
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(startedAt, "startedAt is null");
    }
}
