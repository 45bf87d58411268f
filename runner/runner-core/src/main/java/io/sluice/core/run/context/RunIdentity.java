package io.sluice.core.run.context;

import io.sluice.toolkit.Redactor;

import static java.util.Objects.requireNonNull;

/**
 * Who a run is, as the ledger records it, how to keep its secrets out of what is recorded, this process's part
 * when several processes share the run ({@code join}), and whether it is {@code fresh}: an id no process ran before
 * (the ledger was asked), so no dead process of it can have left anything behind.
 */
public record RunIdentity(String runId, String specName, String specChecksum, Redactor redactor,
                   java.util.Optional<Join> join, boolean fresh) {
    public RunIdentity {
        requireNonNull(runId, "runId is null");
        requireNonNull(specName, "specName is null");
        requireNonNull(specChecksum, "specChecksum is null");
        requireNonNull(redactor, "redactor is null");
        requireNonNull(join, "join is null");
    }
}
