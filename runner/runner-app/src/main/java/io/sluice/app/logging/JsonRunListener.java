package io.sluice.app.logging;

import io.sluice.app.report.RunError;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The run's events as JSON lines: what the console listener prints for people, with the figures as fields.
 * Events: run-started, stream-started, partition-started (DEBUG), partition-retrying (WARN), partition-finished
 * (ERROR when failed), ledger-problem (WARN), stream-verified (with {@code verify:}), stream-finished,
 * run-finished. Partitions and attempts are numbered from 1, as the console shows them.
 */
public final class JsonRunListener implements RunListener {
    private final JsonLog log;

    public JsonRunListener(JsonLog log) {
        this.log = requireNonNull(log, "log is null");
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        log.runId(runId);
        log.event(JsonLog.Level.INFO, "run-started", null, null, "run " + runId + " of spec " + plan.spec().name(),
                fields("spec", plan.spec().name(), "spec-checksum", plan.spec().checksum(),
                        "streams", plan.streams().size()));
    }

    @Override
    public void streamStarted(StreamPlan stream, String snapshotMode) {
        log.event(JsonLog.Level.INFO, "stream-started", stream.name(), null, "stream " + stream.name() + ": "
                        + stream.partitions().size() + " partition(s), degree " + stream.degree(),
                fields("source", stream.source(), "target", stream.targetTable(),
                        "method", stream.spec().distribution().method().specName(), "degree", stream.degree(),
                        "partitions", stream.partitions().size(),
                        "copy-format", stream.projection().format().name().toLowerCase(Locale.ROOT),
                        "snapshot", snapshotMode, "estimated-rows", stream.estimatedRows()));
    }

    @Override
    public void partitionStarted(StreamPlan stream, PartitionPlan partition, int attempt) {
        log.event(JsonLog.Level.DEBUG, "partition-started", stream.name(), partition.index() + 1,
                "partition " + (partition.index() + 1) + "/" + stream.partitions().size() + " started",
                fields("attempt", attempt));
    }

    @Override
    public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                  Duration backoff) {
        log.event(JsonLog.Level.WARN, "partition-retrying", stream.name(), partition.index() + 1,
                "retry: " + cause.getMessage(), fields("code", cause.code(), "attempt", attempt,
                        "next-attempt", attempt + 1,
                        "max-attempts", stream.spec().retry().maxAttempts(), "backoff-ms", backoff.toMillis()));
    }

    @Override
    public void changesRetrying(String feed, SluiceException cause, int failures, int maxAttempts, Duration backoff) {
        log.event(JsonLog.Level.WARN, "changes-retrying", null, null, "changes " + feed + ": retry: "
                + cause.getMessage(), fields("code", cause.code(), "feed", feed, "failures", failures,
                "max-attempts", maxAttempts, "backoff-ms", backoff.toMillis()));
    }

    @Override
    public void partitionFinished(StreamPlan stream, PartitionReport report) {
        boolean failed = report.state() == PartitionReport.State.FAILED;
        log.event(failed ? JsonLog.Level.ERROR : JsonLog.Level.INFO, "partition-finished", stream.name(),
                report.index() + 1, failed ? "failed: " + report.error().orElse("partition " + (report.index() + 1))
                        : "partition " + (report.index() + 1) + " " + report.state().name().toLowerCase(Locale.ROOT),
                fields("state", report.state().name().toLowerCase(Locale.ROOT), "rows", report.rowsWritten(),
                        "rows-read", report.rowsRead(), "bytes", report.bytes(), "attempts", report.attempts(),
                        "seconds", report.duration().toMillis() / 1000.0));
    }

    @Override
    public void lockWait(StreamPlan stream, String what, boolean waiting) {
        log.event(waiting ? JsonLog.Level.WARN : JsonLog.Level.INFO, waiting ? "lock-wait" : "lock-wait-ended",
                stream.name(), null, (waiting ? "waiting for " : "stopped waiting for ") + what, Map.of());
    }

    @Override
    public void ledgerProblem(StreamPlan stream, String message) {
        log.event(JsonLog.Level.WARN, "ledger-problem", stream.name(), null, message, Map.of());
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        verified(report);
        String state = report.state().name().toLowerCase(Locale.ROOT);
        Map<String, Object> fields = fields("state", state, "rows", report.rows(), "bytes", report.bytes(),
                "seconds", report.duration().toMillis() / 1000.0, "rows-per-second", report.rowsPerSecond(),
                "megabytes-per-second", report.megabytesPerSecond(), "partitions-done", report.partitionsDone(),
                "partitions-planned", report.partitionsPlanned(),
                "partitions-done-before", report.partitionsDoneBefore(), "retries", report.retries(),
                "rows-read-equals-rows-written", report.rowCountsMatch());
        report.error().map(RunError::of).ifPresent(e -> putError(fields, e));
        log.event(report.state() == StreamReport.State.FAILED ? JsonLog.Level.ERROR : JsonLog.Level.INFO,
                "stream-finished", report.name(), null, "stream " + report.name() + ": " + state + ", "
                        + report.rows() + " rows", fields);
    }

    @Override
    public void runFinished(RunReport report) {
        String state = report.interrupted() ? "interrupted" : report.error().isPresent() ? "failed" : "done";
        Map<String, Object> fields = fields("state", state, "exit-code", report.exitCode(), "rows", report.rows(),
                "bytes", report.bytes(), "seconds", report.duration().toMillis() / 1000.0);
        report.error().map(RunError::of).ifPresent(e -> putError(fields, e));
        log.event(report.exitCode() == 0 ? JsonLog.Level.INFO : JsonLog.Level.ERROR, "run-finished", null, null,
                "run " + report.runId() + ": " + state + report.error().map(e -> ": " + e.getMessage()).orElse(""),
                fields);
    }

    /** The outcome of {@code verify:} as its own event, when the spec asked for one. */
    private void verified(StreamReport report) {
        Verification v = report.verification();
        if (v.status() == Verification.Status.NOT_REQUESTED) {
            return;
        }
        String mode = v.mode().name().toLowerCase(Locale.ROOT);
        String status = v.status().name().toLowerCase(Locale.ROOT);
        JsonLog.Level level = switch (v.status()) {
            case FAILED -> JsonLog.Level.ERROR;
            case SKIPPED -> JsonLog.Level.WARN;
            default -> JsonLog.Level.INFO;
        };
        log.event(level, "stream-verified", report.name(), null, "stream " + report.name() + ": verify " + mode
                + " " + status + (v.detail().isEmpty() ? "" : ": " + v.detail()), fields("mode", mode,
                "status", status, "scope", v.scope(), "detail", v.detail(), "mismatches",
                String.join("; ", v.mismatches())));
    }

    private static void putError(Map<String, Object> fields, RunError error) {
        fields.put("error-code", error.code());
        fields.put("error-kind", error.kind());
        fields.put("fix", error.fix().orElse(null));
    }

    /** Keys and values alternating, kept in order. */
    private static Map<String, Object> fields(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
