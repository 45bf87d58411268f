package io.sluice.spi.ledger;

import static java.util.Objects.requireNonNull;

/** One stream of one run, as the ledger knows it. */
public record StreamKey(String runId, String stream) {
    public StreamKey {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
    }
}
