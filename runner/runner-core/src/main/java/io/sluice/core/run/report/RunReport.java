package io.sluice.core.run.report;

import io.sluice.core.SluiceException;
import io.sluice.spi.error.ErrorKind;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** What happened to a whole run: one report per stream, the first error and the exit code it implies. */
public record RunReport(
        String runId,
        String specName,
        String specChecksum,
        Instant started,
        Instant finished,
        List<StreamReport> streams,
        boolean interrupted,
        Optional<SluiceException> error,
        List<ChangeReport> changes) {
    public static final int EXIT_INTERRUPTED = 130;

    /** A run whose streams follow no changes. */
    public RunReport(String runId, String specName, String specChecksum, Instant started, Instant finished,
                     List<StreamReport> streams, boolean interrupted, Optional<SluiceException> error) {
        this(runId, specName, specChecksum, started, finished, streams, interrupted, error, List.of());
    }

    public RunReport {
        requireNonNull(runId, "runId is null");
        requireNonNull(specName, "specName is null");
        requireNonNull(specChecksum, "specChecksum is null");
        requireNonNull(started, "started is null");
        requireNonNull(finished, "finished is null");
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
        requireNonNull(error, "error is null");
        changes = List.copyOf(requireNonNull(changes, "changes is null"));
    }

    public int exitCode() {
        if (interrupted) {
            return EXIT_INTERRUPTED;
        }
        int code = error.map(SluiceException::exitCode).orElse(0);
        // 3 and 4 promise that nothing was written: a stream that failed so after others committed rows says 1.
        boolean written = streams.stream().anyMatch(s -> s.partitionsDone() > 0 || s.deletedRows() > 0)
                || changes.stream().anyMatch(c -> c.applied().total() > 0);
        return (code == ErrorKind.INVALID_SPEC.exitCode() || code == ErrorKind.PREFLIGHT.exitCode()) && written
                ? ErrorKind.FAILED.exitCode() : code;
    }

    public long rows() {
        return streams.stream().mapToLong(StreamReport::rows).sum();
    }

    public long bytes() {
        return streams.stream().mapToLong(StreamReport::bytes).sum();
    }

    public Duration duration() {
        return Duration.between(started, finished);
    }
}
