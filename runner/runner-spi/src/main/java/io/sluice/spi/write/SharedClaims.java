package io.sluice.spi.write;

import io.sluice.spi.error.ConnectorException;

/** A target's ability to be loaded by several processes of one run ({@code --join}; {@link PlannedLoad#sharedClaims()}). */
@FunctionalInterface
public interface SharedClaims {
    /**
     * {@link PlannedLoad#claim} for one process of a joined run, the one the run's ledger calls {@code holder}
     * ({@code pid@host}): the processes of {@code runId} hold it together, any other run is kept out as
     * {@link PlannedLoad#claim} keeps it out (and a joined process is kept out while another run holds it). A target may tag
     * its sessions with {@code holder}, so {@link PlannedLoad#endAbandoned} can find them.
     */
    TargetClaim claimShared(String runId, String holder) throws ConnectorException;
}
