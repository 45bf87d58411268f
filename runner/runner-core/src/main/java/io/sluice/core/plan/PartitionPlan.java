package io.sluice.core.plan;

import io.sluice.spi.read.SourcePartition;

import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * A partition in run order (largest first), as plain data: what it reads, how big it is, the statement its reader
 * runs, and the checkpoint from which the source rebuilds it. The executor binds it to the connector's live
 * partition ({@link StreamBinding#partition}).
 *
 * @param id                stable within the stream's plan, the ledger's key
 * @param predicate         how people see it (no secrets)
 * @param exactRows         the rows it holds when the source knows at plan time
 * @param portablePredicate its condition in column names only, for per-partition verification
 * @param checkpoint        what {@link io.sluice.spi.read.Source#restore(String)} rebuilds it from; empty when it cannot
 */
public record PartitionPlan(int index, String id, String predicate, long estimatedRows, long estimatedBytes,
                            OptionalLong exactRows, Optional<String> portablePredicate, Optional<String> checkpoint,
                            String readStatement) {
    public PartitionPlan {
        requireNonNull(id, "id is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(exactRows, "exactRows is null");
        requireNonNull(portablePredicate, "portablePredicate is null");
        requireNonNull(checkpoint, "checkpoint is null");
        requireNonNull(readStatement, "readStatement is null");
    }

    /** The same partition at another position of the run order (a resumed run keeps the recorded one). */
    public PartitionPlan at(int position) {
        return new PartitionPlan(position, id, predicate, estimatedRows, estimatedBytes, exactRows, portablePredicate,
                checkpoint, readStatement);
    }

    /** The data of a connector's partition at position {@code index} of the run order. */
    public static PartitionPlan of(int index, SourcePartition partition, String readStatement) {
        requireNonNull(partition, "partition is null");
        return new PartitionPlan(index, partition.id(), partition.predicate(), partition.estimatedRows(),
                partition.estimatedBytes(), partition.exactRows(), partition.portablePredicate(),
                partition.checkpoint(), readStatement);
    }
}
