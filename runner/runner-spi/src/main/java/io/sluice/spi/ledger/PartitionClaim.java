package io.sluice.spi.ledger;

import java.time.Instant;

import static java.util.Objects.requireNonNull;

/**
 * Which process of a joined run holds a partition, and until when: a holder that stops renewing its lease loses the
 * partition to the others once {@code leaseUntil} passes (by the store's clock). Kept after the commit, to say who
 * copied it.
 *
 * @param holder the process, e.g. {@code 4242@worker-3}
 */
public record PartitionClaim(String holder, Instant leaseUntil) {
    public PartitionClaim {
        requireNonNull(holder, "holder is null");
        requireNonNull(leaseUntil, "leaseUntil is null");
    }
}
