package io.sluice.core.run;

import io.sluice.spi.Redactor;

import static java.util.Objects.requireNonNull;

/** Who a run is, as the ledger records it, and how to keep its secrets out of what is recorded. */
record RunIdentity(String runId, String specName, String specChecksum, Redactor redactor) {
    RunIdentity {
        requireNonNull(runId, "runId is null");
        requireNonNull(specName, "specName is null");
        requireNonNull(specChecksum, "specChecksum is null");
        requireNonNull(redactor, "redactor is null");
    }
}
