package io.sluice.core.run;

import io.sluice.core.plan.PartitionPlan;

import java.util.Optional;
import java.util.Queue;

import static java.util.Objects.requireNonNull;

/** Where a stream's workers get their next partition: this process's plan, or the ledger's claims in a joined run. */
interface PartitionFeed {
    /** The next partition to copy; empty when nothing is left for this process. */
    Optional<PartitionPlan> next() throws InterruptedException;

    /** The copy of {@code partition} ended: committed, failed, or given up. */
    default void ended(PartitionPlan partition) {
    }

    /** The partitions of this process's plan, in run order, shared by its workers. */
    static PartitionFeed of(Queue<PartitionPlan> queue) {
        requireNonNull(queue, "queue is null");
        return () -> Optional.ofNullable(queue.poll());
    }
}
