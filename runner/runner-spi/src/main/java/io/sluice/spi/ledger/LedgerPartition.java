package io.sluice.spi.ledger;

import java.time.Instant;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A planned partition as the ledger keeps it: enough to show it ({@code predicate}) and to restore it exactly on
 * resume ({@code checkpoint}, see {@link io.sluice.spi.read.SourcePartition#checkpoint()}; empty when the source cannot).
 *
 * @param index     its place in the plan; -1 for a partition committed without being planned
 * @param startedAt when its first attempt started, once one did
 * @param finishedAt when it was committed, once it was
 * @param claim     in a joined run, the process that holds (or held) it
 * @param rejected  the rows it set aside ({@code rejects:}); {@code rows} are those it loaded
 */
public record LedgerPartition(int index, String partitionId, String predicate, String checkpoint, State state,
                              long rows, long bytes, int attempts, Optional<Instant> startedAt,
                              Optional<Instant> finishedAt, Optional<PartitionClaim> claim, long rejected) {
    public enum State { PLANNED, DONE }

    /** A partition that set no rows aside. */
    public LedgerPartition(int index, String partitionId, String predicate, String checkpoint, State state,
                           long rows, long bytes, int attempts, Optional<Instant> startedAt,
                           Optional<Instant> finishedAt, Optional<PartitionClaim> claim) {
        this(index, partitionId, predicate, checkpoint, state, rows, bytes, attempts, startedAt, finishedAt, claim, 0);
    }

    public LedgerPartition {
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(checkpoint, "checkpoint is null");
        requireNonNull(state, "state is null");
        requireNonNull(startedAt, "startedAt is null");
        requireNonNull(finishedAt, "finishedAt is null");
        requireNonNull(claim, "claim is null");
    }

    /** A partition no process of a joined run claimed (every partition of a run that is not joined). */
    public LedgerPartition(int index, String partitionId, String predicate, String checkpoint, State state,
                           long rows, long bytes, int attempts, Optional<Instant> startedAt,
                           Optional<Instant> finishedAt) {
        this(index, partitionId, predicate, checkpoint, state, rows, bytes, attempts, startedAt, finishedAt,
                Optional.empty());
    }

    /** The same partition, held by {@code claim}. */
    public LedgerPartition claimedBy(PartitionClaim claim) {
        return new LedgerPartition(index, partitionId, predicate, checkpoint, state, rows, bytes, attempts, startedAt,
                finishedAt, Optional.of(requireNonNull(claim, "claim is null")), rejected);
    }

    /** A partition as a plan records it: planned, nothing copied or tried yet. */
    public static LedgerPartition planned(int index, String partitionId, String predicate, String checkpoint) {
        return new LedgerPartition(index, partitionId, predicate, checkpoint, State.PLANNED, 0, 0, 0,
                Optional.empty(), Optional.empty());
    }
}
