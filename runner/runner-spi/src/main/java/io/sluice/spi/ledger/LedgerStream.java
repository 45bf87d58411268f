package io.sluice.spi.ledger;

import java.time.Instant;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One stream of one run as the ledger records it.
 *
 * @param definition the stream's plan-relevant definition as canonical text (no secrets): a resume compares it
 *                   with the spec's current one and shows the difference
 * @param starts     how often the stream was started: 1, then one more per resume
 */
public record LedgerStream(
        String runId,
        String specName,
        String specChecksum,
        String stream,
        String definition,
        State state,
        String snapshotMode,
        Instant startedAt,
        Optional<Instant> finishedAt,
        Optional<Instant> truncatedAt,
        long rows,
        int starts,
        Optional<String> error,
        int partitionsPlanned,
        int partitionsDone) {
    public enum State { RUNNING, DONE, FAILED, INTERRUPTED }

    public LedgerStream {
        requireNonNull(runId, "runId is null");
        requireNonNull(specName, "specName is null");
        requireNonNull(specChecksum, "specChecksum is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(definition, "definition is null");
        requireNonNull(state, "state is null");
        requireNonNull(snapshotMode, "snapshotMode is null");
        requireNonNull(startedAt, "startedAt is null");
        requireNonNull(finishedAt, "finishedAt is null");
        requireNonNull(truncatedAt, "truncatedAt is null");
        requireNonNull(error, "error is null");
    }

    public StreamKey key() {
        return new StreamKey(runId, stream);
    }

    /** A new stream entry as a run starts it; the ledger fills in times and counts it owns. */
    public static LedgerStream starting(String runId, String specName, String specChecksum, String stream,
                                        String definition, String snapshotMode) {
        return new LedgerStream(runId, specName, specChecksum, stream, definition, State.RUNNING, snapshotMode,
                Instant.now(), Optional.empty(), Optional.empty(), 0, 1, Optional.empty(), 0, 0);
    }
}
