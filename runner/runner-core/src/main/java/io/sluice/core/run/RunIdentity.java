package io.sluice.core.run;

import io.sluice.toolkit.Redactor;

import static java.util.Objects.requireNonNull;

/**
 * Who a run is, as the ledger records it, how to keep its secrets out of what is recorded, and this process's part
 * when several processes share the run ({@code join}).
 */
record RunIdentity(String runId, String specName, String specChecksum, Redactor redactor,
                   java.util.Optional<Join> join) {
    RunIdentity {
        requireNonNull(runId, "runId is null");
        requireNonNull(specName, "specName is null");
        requireNonNull(specChecksum, "specChecksum is null");
        requireNonNull(redactor, "redactor is null");
        requireNonNull(join, "join is null");
    }
}
