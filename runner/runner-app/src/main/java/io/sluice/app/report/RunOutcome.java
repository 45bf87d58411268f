package io.sluice.app.report;

import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.spec.PipelineSpec;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the summary and the JUnit report describe: a finished run (from its {@link RunReport}) or a run that ended
 * before any stream started (invalid spec, preflight failure), which has no streams and an error.
 */
public record RunOutcome(
        Optional<String> runId,
        SpecIdentity spec,
        Instant started,
        Instant finished,
        List<StreamReport> streams,
        boolean interrupted,
        Optional<RunError> error,
        int exitCode,
        List<ChangeReport> changes) {
    /** A run without change feeds. */
    public RunOutcome(Optional<String> runId, SpecIdentity spec, Instant started, Instant finished,
                      List<StreamReport> streams, boolean interrupted, Optional<RunError> error, int exitCode) {
        this(runId, spec, started, finished, streams, interrupted, error, exitCode, List.of());
    }

    public RunOutcome {
        changes = List.copyOf(requireNonNull(changes, "changes is null"));
        requireNonNull(runId, "runId is null");
        requireNonNull(spec, "spec is null");
        requireNonNull(started, "started is null");
        requireNonNull(finished, "finished is null");
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
        requireNonNull(error, "error is null");
    }

    public static RunOutcome of(PipelineSpec spec, RunReport report) {
        requireNonNull(spec, "spec is null");
        return of(SpecIdentity.of(spec), report);
    }

    /** With the spec named as the caller knows it (the service names specs relative to its folder). */
    public static RunOutcome of(SpecIdentity spec, RunReport report) {
        requireNonNull(report, "report is null");
        return new RunOutcome(Optional.of(report.runId()), spec, report.started(), report.finished(),
                report.streams(), report.interrupted(), report.error().map(RunError::of), report.exitCode(),
                report.changes());
    }

    /** A run that failed before its first stream: no stream reports, just the error and its exit code. */
    public static RunOutcome failedBeforeRun(Optional<String> runId, SpecIdentity spec, Instant started,
                                             Throwable error, int exitCode) {
        requireNonNull(error, "error is null");
        return new RunOutcome(runId, spec, started, Instant.now(), List.of(), false, Optional.of(RunError.of(error)),
                exitCode);
    }

    /** done, failed or interrupted. */
    public String state() {
        if (interrupted) {
            return "interrupted";
        }
        return exitCode == 0 ? "done" : "failed";
    }

    public long rows() {
        return streams.stream().mapToLong(StreamReport::rows).sum();
    }

    public long bytes() {
        return streams.stream().mapToLong(StreamReport::bytes).sum();
    }

    public double seconds() {
        return java.time.Duration.between(started, finished).toNanos() / 1e9;
    }
}
