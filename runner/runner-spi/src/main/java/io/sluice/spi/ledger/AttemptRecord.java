package io.sluice.spi.ledger;

import java.time.Instant;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** One attempt of a partition that did not commit: why, and whether it will be retried. */
public record AttemptRecord(String runId, String stream, String partitionId, int attempt, Instant startedAt,
                            Instant finishedAt, Outcome outcome, Optional<String> errorCode,
                            Optional<String> message) {
    public enum Outcome { RETRIED, FAILED, CANCELLED }

    public AttemptRecord {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(startedAt, "startedAt is null");
        requireNonNull(finishedAt, "finishedAt is null");
        requireNonNull(outcome, "outcome is null");
        requireNonNull(errorCode, "errorCode is null");
        requireNonNull(message, "message is null");
    }
}
