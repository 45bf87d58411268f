package io.sluice.app.report;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import io.sluice.core.spec.VerifyMode;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.data.ColumnPair;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * Records a run as it happens, for its run report: when each attempt of each partition started and how it ended.
 * Thread-safe (workers call it concurrently); {@link #timeline()} can be asked at any time, also while the run runs.
 */
public final class TimelineRecorder implements RunListener {
    private final Clock clock;
    private volatile PipelinePlan plan;
    private volatile String runId = "";
    private volatile Instant started;
    private volatile RunReport report;
    private final Map<String, StreamReport> streamReports = new ConcurrentHashMap<>();
    /** Per stream, per partition index: the attempts so far, in order; the last one open while it runs. */
    private final Map<String, Map<Integer, List<MutableAttempt>>> attempts = new ConcurrentHashMap<>();
    /** Per change feed, in the order they started: where it is (replaced whole on every batch). */
    private final Map<String, RunTimeline.ChangeTimeline> changes = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>());

    public TimelineRecorder(Clock clock) {
        this.clock = requireNonNull(clock, "clock is null");
        this.started = clock.instant();
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        this.plan = requireNonNull(plan, "plan is null");
        this.runId = requireNonNull(runId, "runId is null");
        this.started = clock.instant();
    }

    @Override
    public void partitionStarted(StreamPlan stream, PartitionPlan partition, int attempt) {
        List<MutableAttempt> list = attemptsOf(stream, partition.index());
        synchronized (list) {
            list.add(new MutableAttempt(attempt, clock.instant()));
        }
    }

    @Override
    public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                  Duration backoff) {
        close(attemptsOf(stream, partition.index()), RunTimeline.Outcome.RETRIED,
                Optional.of(cause.code() + ": " + cause.getMessage()));
    }

    @Override
    public void partitionFinished(StreamPlan stream, PartitionReport report) {
        RunTimeline.Outcome outcome = switch (report.state()) {
            case DONE -> RunTimeline.Outcome.DONE;
            case FAILED -> RunTimeline.Outcome.FAILED;
            case CANCELLED -> RunTimeline.Outcome.CANCELLED;
        };
        close(attemptsOf(stream, report.index()), outcome, report.error());
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        streamReports.put(stream.name(), report);
    }

    @Override
    public void changesStarted(String feed, String mode, String from, Optional<String> upTo) {
        changes.put(feed, new RunTimeline.ChangeTimeline(feed, "applying", from, from, 0, 0, 0, 0, 0, 0,
                Optional.empty()));
    }

    @Override
    public void changesApplied(String feed, ChangeBatch batch, ChangeApplier.Applied applied,
                               long bytesBehind) {
        changes.computeIfPresent(feed, (f, c) -> new RunTimeline.ChangeTimeline(f, c.state(), c.from(), batch.end(),
                c.transactions() + batch.transactions(), c.inserts() + applied.inserts(),
                c.updates() + applied.updates(), c.deletes() + applied.deletes(),
                c.truncates() + applied.truncates(), bytesBehind, Optional.empty()));
    }

    @Override
    public void changesFinished(ChangeReport report) {
        ChangeApplier.Applied applied = report.applied();
        changes.put(report.feed(), new RunTimeline.ChangeTimeline(report.feed(),
                report.error().isPresent() ? "failed" : "done", report.from(), report.to(), report.transactions(),
                applied.inserts(), applied.updates(), applied.deletes(), applied.truncates(), report.bytesBehind(),
                report.error().map(e -> e.code() + ": " + e.getMessage())));
    }

    @Override
    public void runFinished(RunReport report) {
        this.report = requireNonNull(report, "report is null");
    }

    /** The run as recorded so far: finished once {@link #runFinished} was heard. */
    public RunTimeline timeline() {
        PipelinePlan plan = this.plan;
        RunReport report = this.report;
        Instant now = clock.instant();
        List<RunTimeline.StreamTimeline> streams = new ArrayList<>();
        if (plan != null) {
            for (StreamPlan stream : plan.streams()) {
                streams.add(stream(stream, Optional.ofNullable(streamReports.get(stream.name())), now));
            }
        }
        String state = report == null ? "running" : report.interrupted() ? "interrupted"
                : report.error().isPresent() ? "failed" : "done";
        long rows = streams.stream().mapToLong(RunTimeline.StreamTimeline::rows).sum();
        long bytes = streams.stream().mapToLong(RunTimeline.StreamTimeline::bytes).sum();
        return new RunTimeline(runId, plan == null ? "" : plan.spec().name(), state,
                report == null ? started : report.started(), Optional.ofNullable(report).map(RunReport::finished),
                rows, bytes, Optional.ofNullable(report).flatMap(RunReport::error)
                .map(e -> e.code() + ": " + e.getMessage()), "recorded while the run ran", streams, changes());
    }

    private List<RunTimeline.ChangeTimeline> changes() {
        synchronized (changes) {
            return List.copyOf(changes.values());
        }
    }

    private RunTimeline.StreamTimeline stream(StreamPlan stream, Optional<StreamReport> report, Instant now) {
        Map<Integer, List<MutableAttempt>> byIndex = attempts.getOrDefault(stream.name(), Map.of());
        Map<Integer, PartitionReport> finished = new java.util.HashMap<>();
        report.ifPresent(r -> r.partitions().forEach(p -> finished.put(p.index(), p)));
        List<RunTimeline.PartitionTimeline> partitions = new ArrayList<>();
        long rows = 0;
        long bytes = 0;
        for (PartitionPlan partition : stream.partitions()) {
            List<RunTimeline.Attempt> tried = new ArrayList<>();
            List<MutableAttempt> list = byIndex.getOrDefault(partition.index(), List.of());
            synchronized (list) {
                for (MutableAttempt a : list) {
                    tried.add(a.freeze(now));
                }
            }
            PartitionReport done = finished.get(partition.index());
            String state = done != null ? done.state().name().toLowerCase(Locale.ROOT)
                    : tried.isEmpty() ? "not run" : tried.getLast().outcome() == RunTimeline.Outcome.RUNNING
                    ? "running" : tried.getLast().outcome().name().toLowerCase(Locale.ROOT);
            long partitionRows = done == null ? 0 : done.rowsWritten();
            long partitionBytes = done == null ? 0 : done.bytes();
            rows += partitionRows;
            bytes += partitionBytes;
            partitions.add(new RunTimeline.PartitionTimeline(partition.index(), partition.id(), partition.predicate(),
                    state, partitionRows, partitionBytes, tried, done == null ? 0 : done.rowsRejected()));
        }
        return new RunTimeline.StreamTimeline(stream.name(),
                report.map(r -> r.state().name().toLowerCase(Locale.ROOT)).orElse("running"), stream.source(),
                stream.targetTable(), method(stream), stream.degree(), report.map(StreamReport::rows).orElse(rows),
                report.map(StreamReport::bytes).orElse(bytes), report.map(StreamReport::deletedRows).orElse(0L),
                stream.allPartitions().size(),
                report.map(StreamReport::partitionsDoneBefore).orElse(stream.allPartitions().size()
                        - stream.partitions().size()), report.map(StreamReport::retries).orElse(0),
                statements(stream), columns(stream), report.map(r -> verification(r.verification())).orElse(""),
                report.flatMap(StreamReport::error).map(e -> e.code() + ": " + e.getMessage()), partitions,
                stream.load().shapeChanges());
    }

    static String method(StreamPlan stream) {
        return stream.spec().distribution().method().specName()
                + stream.spec().distribution().key().map(k -> " on " + k).orElse("") + ", load mode "
                + stream.spec().load().spelled();
    }

    /** What each side runs, as {@code sluice plan} shows it. */
    static List<String> statements(StreamPlan stream) {
        List<String> statements = new ArrayList<>();
        statements.add("-- the target, for each partition\n" + stream.writeStatement());
        if (!stream.load().statements().isEmpty()) {
            statements.add("-- the target, before the first partition and after the last\n"
                    + String.join("\n", stream.load().statements()));
        }
        if (!stream.partitions().isEmpty()) {
            statements.add("-- the source, for partition 1\n" + stream.partitions().getFirst().readStatement());
        }
        return statements;
    }

    static List<String> columns(StreamPlan stream) {
        List<String> lines = new ArrayList<>();
        List<ColumnPair> pairs = stream.columns();
        List<String> expressions = stream.projection().expressions();
        for (int i = 0; i < pairs.size(); i++) {
            ColumnPair pair = pairs.get(i);
            lines.add(expressions.get(i) + "  ->  \"" + pair.target().name() + "\" " + pair.target().typeName());
        }
        return lines;
    }

    static final int SHOWN_MISMATCHES = 20;

    static String verification(Verification v) {
        return switch (v.status()) {
            case NOT_REQUESTED -> "not requested (every partition: rows read = rows written)";
            case PASSED -> "passed (" + v.mode().name().toLowerCase(Locale.ROOT) + ", per " + v.scope() + ")"
                    + (v.detail().isEmpty() ? "" : ": " + v.detail());
            case SKIPPED -> "skipped: " + v.detail();
            case FAILED -> "FAILED (" + v.mode().name().toLowerCase(Locale.ROOT) + ", per " + v.scope() + "): "
                    + (v.mode() == VerifyMode.COMPARE ? v.detail() + ": " : "") + shown(v.mismatches());
        };
    }

    /** The first {@link #SHOWN_MISMATCHES} mismatches; the summary JSON has them all. */
    private static String shown(List<String> mismatches) {
        return mismatches.size() <= SHOWN_MISMATCHES ? String.join("; ", mismatches)
                : String.join("; ", mismatches.subList(0, SHOWN_MISMATCHES)) + "; and "
                + (mismatches.size() - SHOWN_MISMATCHES) + " more (--summary-json lists them)";
    }

    private List<MutableAttempt> attemptsOf(StreamPlan stream, int index) {
        return attempts.computeIfAbsent(stream.name(), k -> new ConcurrentHashMap<>())
                .computeIfAbsent(index, k -> new ArrayList<>());
    }

    private void close(List<MutableAttempt> list, RunTimeline.Outcome outcome, Optional<String> error) {
        Instant now = clock.instant();
        synchronized (list) {
            if (list.isEmpty()) {
                // Cancelled before it started: a zero-length attempt keeps the partition on the timeline.
                list.add(new MutableAttempt(1, now));
            }
            MutableAttempt last = list.getLast();
            if (last.outcome == RunTimeline.Outcome.RUNNING) {
                last.outcome = outcome;
                last.end = now;
                last.error = error;
            }
        }
    }

    /** Guarded by the list that holds it. */
    private static final class MutableAttempt {
        private final int number;
        private final Instant start;
        private Instant end;
        private RunTimeline.Outcome outcome = RunTimeline.Outcome.RUNNING;
        private Optional<String> error = Optional.empty();

        MutableAttempt(int number, Instant start) {
            this.number = number;
            this.start = start;
        }

        RunTimeline.Attempt freeze(Instant now) {
            return new RunTimeline.Attempt(number, start, end == null ? now : end, outcome, error, Optional.empty());
        }
    }
}
