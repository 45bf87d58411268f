package io.sluice.core.run.context;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * This process's part in a joined run ({@code sluice run --join}): the processes of one run id share its partitions
 * through the ledger, each claiming one at a time under a lease it renews while it copies.
 *
 * @param holder how the ledger names this process, {@code pid@host}
 * @param lease  how long a claim lasts without renewal; a process silent for longer loses its partitions
 */
public record Join(String holder, Duration lease) {
    public Join {
        requireNonNull(holder, "holder is null");
        requireNonNull(lease, "lease is null");
        if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("lease must be at least 1 s: " + lease);
        }
    }

    /** This process, {@code pid@host}, with {@code lease}. */
    public static Join thisProcess(Duration lease) {
        return new Join(ManagementFactory.getRuntimeMXBean().getName(), lease);
    }
}
