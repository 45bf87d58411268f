package io.sluice.app.telemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * A trace per run: a {@code sluice.run} span, a {@code sluice.stream} span per stream under it, and a
 * {@code sluice.partition} span per attempt of each partition under its stream, ending with the attempt's outcome
 * ({@code done}, {@code retried}, {@code failed}, {@code cancelled}). Every string passes the redactor.
 */
public final class RunTracer implements RunListener {
    static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("sluice.run.id");
    static final AttributeKey<String> SPEC = AttributeKey.stringKey("sluice.spec");
    static final AttributeKey<String> STREAM = AttributeKey.stringKey("sluice.stream");
    static final AttributeKey<String> METHOD = AttributeKey.stringKey("sluice.distribution.method");
    static final AttributeKey<Long> DEGREE = AttributeKey.longKey("sluice.degree");
    static final AttributeKey<String> TARGET = AttributeKey.stringKey("sluice.target.table");
    static final AttributeKey<Long> PARTITIONS = AttributeKey.longKey("sluice.partitions");
    static final AttributeKey<Long> PARTITION = AttributeKey.longKey("sluice.partition");
    static final AttributeKey<String> PREDICATE = AttributeKey.stringKey("sluice.partition.predicate");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("sluice.attempt");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("sluice.outcome");
    static final AttributeKey<Long> ROWS = AttributeKey.longKey("sluice.rows");
    static final AttributeKey<Long> BYTES = AttributeKey.longKey("sluice.bytes");
    static final AttributeKey<String> ERROR_CODE = AttributeKey.stringKey("sluice.error.code");
    static final AttributeKey<Long> EXIT_CODE = AttributeKey.longKey("sluice.exit.code");

    private final Tracer tracer;
    private final UnaryOperator<String> redact;
    private volatile Span run;
    private final Map<String, Span> streams = new ConcurrentHashMap<>();
    private final Map<String, Span> attempts = new ConcurrentHashMap<>();

    public RunTracer(Tracer tracer, UnaryOperator<String> redact) {
        this.tracer = requireNonNull(tracer, "tracer is null");
        this.redact = requireNonNull(redact, "redact is null");
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        run = tracer.spanBuilder("sluice.run").setNoParent().setAllAttributes(Attributes.of(RUN_ID,
                redact.apply(runId), SPEC, redact.apply(plan.spec().name()))).startSpan();
    }

    @Override
    public void streamStarted(StreamPlan stream, String snapshotMode) {
        Span span = tracer.spanBuilder("sluice.stream").setParent(parent(run))
                .setAttribute(STREAM, redact.apply(stream.name()))
                .setAttribute(METHOD, stream.spec().distribution().method().specName())
                .setAttribute(DEGREE, (long) stream.degree())
                .setAttribute(TARGET, redact.apply(stream.targetTable()))
                .setAttribute(PARTITIONS, (long) stream.partitions().size()).startSpan();
        streams.put(stream.name(), span);
    }

    @Override
    public void partitionStarted(StreamPlan stream, PartitionPlan partition, int attempt) {
        Span span = tracer.spanBuilder("sluice.partition").setParent(parent(streams.get(stream.name())))
                .setAttribute(STREAM, redact.apply(stream.name()))
                .setAttribute(PARTITION, (long) partition.index() + 1)
                .setAttribute(PREDICATE, redact.apply(partition.predicate()))
                .setAttribute(ATTEMPT, (long) attempt).startSpan();
        attempts.put(key(stream, partition.index()), span);
    }

    @Override
    public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                  Duration backoff) {
        Span span = attempts.remove(key(stream, partition.index()));
        if (span != null) {
            span.setAttribute(OUTCOME, "retried").setAttribute(ERROR_CODE, cause.code())
                    .setStatus(StatusCode.ERROR, redact.apply(cause.getMessage())).end();
        }
    }

    @Override
    public void partitionFinished(StreamPlan stream, PartitionReport report) {
        Span span = attempts.remove(key(stream, report.index()));
        if (span == null) { // cancelled before it started: still one span, so every partition shows
            span = tracer.spanBuilder("sluice.partition").setParent(parent(streams.get(stream.name())))
                    .setAttribute(STREAM, redact.apply(stream.name()))
                    .setAttribute(PARTITION, (long) report.index() + 1).startSpan();
        }
        span.setAttribute(OUTCOME, report.state().name().toLowerCase(Locale.ROOT))
                .setAttribute(ROWS, report.rowsWritten()).setAttribute(BYTES, report.bytes());
        if (report.state() != PartitionReport.State.DONE) {
            span.setStatus(StatusCode.ERROR, redact.apply(report.error().orElse(report.state().name())));
        }
        span.end();
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        Span span = streams.remove(stream.name());
        if (span == null) {
            return;
        }
        span.setAttribute(OUTCOME, report.state().name().toLowerCase(Locale.ROOT))
                .setAttribute(ROWS, report.rows()).setAttribute(BYTES, report.bytes());
        report.error().ifPresent(e -> span.setAttribute(ERROR_CODE, e.code())
                .setStatus(StatusCode.ERROR, redact.apply(e.getMessage())));
        span.end();
    }

    @Override
    public void runFinished(RunReport report) {
        Span span = run;
        if (span == null) {
            return;
        }
        span.setAttribute(ROWS, report.rows()).setAttribute(BYTES, report.bytes())
                .setAttribute(EXIT_CODE, (long) report.exitCode())
                .setAttribute(OUTCOME, report.interrupted() ? "interrupted" : report.error().isPresent() ? "failed"
                        : "done");
        report.error().ifPresent(e -> span.setAttribute(ERROR_CODE, e.code())
                .setStatus(StatusCode.ERROR, redact.apply(e.getMessage())));
        span.end();
    }

    private static Context parent(Span span) {
        return span == null ? Context.root() : Context.root().with(span);
    }

    private static String key(StreamPlan stream, int index) {
        return stream.name() + '\u0000' + index;
    }
}
