package io.sluice.core.ledger;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamKey;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The ledger's rules for the processes of a joined run ({@code --join}; {@link Ledger#claims()}): a partition is
 * claimed by one process at a time under a lease measured by the store's clock, renewed while it copies, and taken
 * over when the lease ends.
 */
public final class ClaimLedger {
    private final LedgerStore store;

    ClaimLedger(LedgerStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    /**
     * Claims the next partition of a joined run for {@code holder}, leased for {@code lease} by the store's clock:
     * the first planned one in plan order that no other process holds. Empty when none is claimable now (all done,
     * or held by leases that have not ended).
     */
    public Optional<Claim> claimNext(StreamKey key, String holder, Duration lease)
            throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(holder, "holder is null");
        requireNonNull(lease, "lease is null");
        return store.inTransaction(tx -> {
            Instant now = tx.now();
            Optional<LedgerPartition> next = tx.lockNextClaimable(key, now);
            if (next.isEmpty()) {
                return Optional.<Claim>empty();
            }
            LedgerPartition held = next.get().claimedBy(new PartitionClaim(holder, now.plus(lease)));
            tx.writePartitions(key, List.of(held));
            return Optional.of(new Claim(held, next.get().claim().map(PartitionClaim::holder)
                    .filter(previous -> !previous.equals(holder))));
        });
    }

    /** A partition claimed, and the process whose ended lease it was taken from, if any. */
    public record Claim(LedgerPartition partition, Optional<String> takenFrom) {
        public Claim {
            requireNonNull(partition, "partition is null");
            requireNonNull(takenFrom, "takenFrom is null");
        }
    }

    /** Extends {@code holder}'s leases on these partitions; one it lost or that is done is left alone. */
    public void renew(StreamKey key, String holder, Collection<String> partitionIds, Duration lease)
            throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(holder, "holder is null");
        requireNonNull(lease, "lease is null");
        if (partitionIds.isEmpty()) {
            return;
        }
        store.inTransaction(tx -> {
            Instant until = tx.now().plus(lease);
            for (String id : partitionIds) {
                Optional<LedgerPartition> p = tx.lockPartition(key, id);
                if (p.isPresent() && p.get().state() == LedgerPartition.State.PLANNED
                        && p.get().claim().map(PartitionClaim::holder).orElse("").equals(holder)) {
                    tx.writePartitions(key, List.of(p.get().claimedBy(new PartitionClaim(holder, until))));
                }
            }
            return null;
        });
    }

    /** {@link LedgerStore#endStalledLocks}: the sessions of other processes of the run ended, how many. */
    public int endStalledLocks(StreamKey key, String holder, Duration patience) throws ConnectorException {
        return store.endStalledLocks(requireNonNull(key, "key is null"), requireNonNull(holder, "holder is null"),
                requireNonNull(patience, "patience is null"));
    }

    /** Where a joined run's stream stands, by the store's clock. */
    public JoinedProgress progress(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        return store.inTransaction(tx -> JoinedProgress.of(tx.partitions(key), tx.now()));
    }
}
