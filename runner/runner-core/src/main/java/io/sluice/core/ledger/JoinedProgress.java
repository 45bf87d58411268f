package io.sluice.core.ledger;

import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.PartitionClaim;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where the partitions of a joined run's stream stand at one moment of the store's clock.
 *
 * @param planned      the partitions of the plan
 * @param done         of them, committed by any process
 * @param held         of them, not done and under a lease that has not ended
 * @param nextLeaseEnd how long until the first of those leases ends, when one is held
 */
public record JoinedProgress(int planned, int done, int held, Optional<Duration> nextLeaseEnd) {
    public JoinedProgress {
        requireNonNull(nextLeaseEnd, "nextLeaseEnd is null");
    }

    static JoinedProgress of(List<LedgerPartition> partitions, Instant now) {
        int planned = 0;
        int done = 0;
        int held = 0;
        Instant soonest = null;
        for (LedgerPartition p : partitions) {
            if (p.index() < 0) {
                continue;
            }
            planned++;
            if (p.state() == LedgerPartition.State.DONE) {
                done++;
                continue;
            }
            Optional<Instant> until = p.claim().map(PartitionClaim::leaseUntil).filter(t -> t.isAfter(now));
            if (until.isPresent()) {
                held++;
                soonest = soonest == null || until.get().isBefore(soonest) ? until.get() : soonest;
            }
        }
        return new JoinedProgress(planned, done, held,
                Optional.ofNullable(soonest).map(t -> Duration.between(now, t)));
    }

    public boolean allDone() {
        return done == planned;
    }
}
