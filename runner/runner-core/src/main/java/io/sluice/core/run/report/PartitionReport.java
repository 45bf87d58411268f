package io.sluice.core.run.report;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What happened to one partition. {@code rowsRead == rowsWritten + rowsRejected} is checked for every committed
 * partition; {@code rejectReasons} are the first few rows set aside ({@code rejects:}).
 */
public record PartitionReport(
        int index,
        String id,
        String predicate,
        State state,
        long rowsRead,
        long rowsWritten,
        long bytes,
        int attempts,
        Duration duration,
        Optional<String> error,
        long rowsRejected,
        List<String> rejectReasons) {
    public enum State { DONE, FAILED, CANCELLED }

    /** A partition that set no rows aside. */
    public PartitionReport(int index, String id, String predicate, State state, long rowsRead, long rowsWritten,
                           long bytes, int attempts, Duration duration, Optional<String> error) {
        this(index, id, predicate, state, rowsRead, rowsWritten, bytes, attempts, duration, error, 0, List.of());
    }

    public PartitionReport {
        requireNonNull(id, "id is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(state, "state is null");
        requireNonNull(duration, "duration is null");
        requireNonNull(error, "error is null");
        rejectReasons = List.copyOf(requireNonNull(rejectReasons, "rejectReasons is null"));
    }
}
