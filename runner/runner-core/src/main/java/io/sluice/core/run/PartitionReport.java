package io.sluice.core.run;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** What happened to one partition. {@code rowsRead == rowsWritten} is checked for every committed partition. */
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
        Optional<String> error) {
    public enum State { DONE, FAILED, CANCELLED }

    public PartitionReport {
        requireNonNull(id, "id is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(state, "state is null");
        requireNonNull(duration, "duration is null");
        requireNonNull(error, "error is null");
    }
}
