package io.sluice.spi.ledger;

import static java.util.Objects.requireNonNull;

/**
 * A stream as one run recorded it, and whether that run is unfinished (a stream of it, this one or another, is not
 * done): what a fresh run looks at to take over what earlier runs left.
 */
public record StreamInRun(LedgerStream stream, boolean runUnfinished) {
    public StreamInRun {
        requireNonNull(stream, "stream is null");
    }
}
