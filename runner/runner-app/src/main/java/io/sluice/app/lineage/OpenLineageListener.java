package io.sluice.app.lineage;

import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamLineage;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * OpenLineage events for a run: a job per spec ({@code <spec>}) and one per stream ({@code <spec>.<stream>}, its
 * parent the spec's run), each with START and then COMPLETE, FAIL or ABORT (interrupted). A stream's inputs are what
 * its source reads, its output the target table with its schema and the rows and bytes written; the spec's run
 * lists them all. The spec's run is the scheduler's child when {@code OPENLINEAGE_PARENT_ID} says so. Events are
 * sent by {@link LineageSender}, never failing the load; what could not be sent is told at the end.
 */
public final class OpenLineageListener implements RunListener, AutoCloseable {
    private final LineageSettings settings;
    private final LineageEvents events;
    private final LineageSender sender;
    private final Function<StreamPlan, StreamLineage> lineage;
    private final Consumer<String> warn;
    private final Map<String, StreamPlan> started = new ConcurrentHashMap<>();
    /** Asked of the connectors once per stream: every event of the stream and the run's last one reuse it. */
    private final Map<String, StreamLineage> named = new ConcurrentHashMap<>();
    private volatile PipelinePlan plan;
    private volatile String runId;

    public OpenLineageListener(LineageSettings settings, UnaryOperator<String> redact,
                               Function<StreamPlan, StreamLineage> lineage, Consumer<String> warn) {
        this.settings = requireNonNull(settings, "settings is null");
        this.events = new LineageEvents(requireNonNull(redact, "redact is null"));
        this.sender = new LineageSender(settings);
        this.lineage = requireNonNull(lineage, "lineage is null");
        this.warn = requireNonNull(warn, "warn is null");
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        this.plan = plan;
        this.runId = runId;
        List<LineageEvents.Dataset> inputs = new ArrayList<>();
        List<LineageEvents.Dataset> outputs = new ArrayList<>();
        for (StreamPlan stream : plan.streams()) {
            StreamLineage datasets = safely(stream);
            datasets.inputs().forEach(d -> inputs.add(new LineageEvents.Dataset(d, List.of(), Optional.empty())));
            datasets.output().ifPresent(d -> outputs.add(new LineageEvents.Dataset(d, List.of(), Optional.empty())));
        }
        sender.send(events.event("START", Instant.now(), specJob(), specRun(), schedulerParent(), Optional.empty(),
                inputs, outputs));
    }

    @Override
    public void streamStarted(StreamPlan stream, String snapshotMode) {
        started.put(stream.name(), stream);
        sendStream(stream, "START", Optional.empty(), Optional.empty());
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        if (report.state() == StreamReport.State.SKIPPED) {
            return; // nothing ran (a resume found it done): its run ended before
        }
        if (started.remove(stream.name()) == null) {
            sendStream(stream, "START", Optional.empty(), Optional.empty());
        }
        String type = switch (report.state()) {
            case DONE -> "COMPLETE";
            case INTERRUPTED -> "ABORT";
            default -> "FAIL";
        };
        sendStream(stream, type, report.error().map(Throwable::getMessage),
                Optional.of(new long[] {report.rows(), report.bytes()}));
    }

    @Override
    public void runFinished(RunReport report) {
        if (plan == null) {
            return;
        }
        String type = report.interrupted() ? "ABORT" : report.exitCode() == 0 ? "COMPLETE" : "FAIL";
        List<LineageEvents.Dataset> outputs = new ArrayList<>();
        for (StreamPlan stream : plan.streams()) {
            safely(stream).output().ifPresent(d -> outputs.add(new LineageEvents.Dataset(d, List.of(),
                    report.streams().stream().filter(s -> s.name().equals(stream.name())).findFirst()
                            .map(s -> new long[] {s.rows(), s.bytes()}))));
        }
        Optional<String> error = report.error().map(Throwable::getMessage)
                .or(() -> type.equals("COMPLETE") ? Optional.empty() : Optional.of("run " + report.runId()
                        + " ended with exit code " + report.exitCode()));
        sender.send(events.event(type, Instant.now(), specJob(), specRun(), schedulerParent(), error, List.of(),
                outputs));
    }

    private void sendStream(StreamPlan stream, String type, Optional<String> error, Optional<long[]> written) {
        StreamLineage datasets = safely(stream);
        List<Column> sourceColumns = stream.columns().stream().map(ColumnPair::source).toList();
        List<LineageEvents.Dataset> inputs = datasets.inputs().stream()
                .map(d -> new LineageEvents.Dataset(d, datasets.inputs().size() == 1 ? sourceColumns : List.of(),
                        Optional.empty())).toList();
        List<LineageEvents.Dataset> outputs = datasets.output().stream()
                .map(d -> new LineageEvents.Dataset(d, stream.targetColumns(), written)).toList();
        LineageEvents.Job job = new LineageEvents.Job(settings.namespace(), plan.spec().name() + "." + stream.name(),
                "TASK");
        sender.send(events.event(type, Instant.now(), job, LineageEvents.runUuid(job.name(), runId),
                Optional.of(new LineageEvents.ParentRun(settings.namespace(), plan.spec().name(),
                        specRun().toString())), error, inputs, outputs));
    }

    private StreamLineage safely(StreamPlan stream) {
        return named.computeIfAbsent(stream.name(), name -> {
            try {
                return lineage.apply(stream);
            } catch (RuntimeException e) {
                return new StreamLineage(List.of(), Optional.empty());
            }
        });
    }

    private LineageEvents.Job specJob() {
        return new LineageEvents.Job(settings.namespace(), plan.spec().name(), "JOB");
    }

    private UUID specRun() {
        return LineageEvents.runUuid(plan.spec().name(), runId);
    }

    private Optional<LineageEvents.ParentRun> schedulerParent() {
        return settings.parent().map(p -> new LineageEvents.ParentRun(p.namespace(), p.job(), p.runId()));
    }

    /** Waits for the events still queued (bounded), and says what could not be delivered. */
    @Override
    public void close() {
        sender.close();
        String failures = sender.failures();
        if (!failures.isEmpty()) {
            warn.accept("warning: OpenLineage: " + failures + "; the load itself is not affected");
        }
    }
}
