package io.sluice.app.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * Run events as Micrometer meters, units in the names and a stable {@code sluice.} prefix (modelled on HikariCP's
 * {@code hikaricp.connections.*}). Tags: pipeline, stream, connector (the source's type), degree and run_id. The
 * engine knows nothing of this. One instance per run: a service running several at once gives each its own.
 *
 * <p>Meters (Prometheus names in docs/operations.md): {@code sluice.copied.rows}, {@code sluice.copied.bytes},
 * {@code sluice.partitions} (by state), {@code sluice.partitions.planned}, {@code sluice.partitions.running},
 * {@code sluice.partition.duration}, {@code sluice.partition.retries}, {@code sluice.throughput.rows.per.second},
 * {@code sluice.throughput.bytes.per.second}; for change feeds (tags pipeline, feed, run_id)
 * {@code sluice.changes.applied} (by kind), {@code sluice.changes.transactions} and {@code sluice.changes.lag.bytes}.
 */
public final class MetricsRunListener implements RunListener {
    private final MeterRegistry registry;
    private final Map<String, StreamGauges> streams = new ConcurrentHashMap<>();
    /** Bytes of source log each change feed is behind, by feed. */
    private final Map<String, java.util.concurrent.atomic.AtomicLong> lags = new ConcurrentHashMap<>();
    private volatile PipelinePlan plan;
    private volatile String runId = "";

    public MetricsRunListener(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        this.plan = plan;
        this.runId = runId;
    }

    @Override
    public void streamStarted(StreamPlan stream, String snapshotMode) {
        StreamGauges gauges = streams.computeIfAbsent(stream.name(), name -> register(tags(stream)));
        gauges.start(stream.partitions().size());
    }

    private StreamGauges register(Tags tags) {
        StreamGauges gauges = new StreamGauges();
        // Strong references: the registry would otherwise drop the gauges once this listener is collected, and a
        // final push must still see them.
        Gauge.builder("sluice.partitions.planned", gauges, StreamGauges::planned).strongReference(true)
                .description("Partitions the stream's plan has").baseUnit("partitions").tags(tags).register(registry);
        Gauge.builder("sluice.partitions.running", gauges, StreamGauges::running).strongReference(true)
                .description("Partitions being copied now").baseUnit("partitions").tags(tags).register(registry);
        Gauge.builder("sluice.throughput.rows.per.second", gauges, StreamGauges::rowsPerSecond)
                .strongReference(true).description("Rows committed per second since the stream started")
                .tags(tags).register(registry);
        Gauge.builder("sluice.throughput.bytes.per.second", gauges, StreamGauges::bytesPerSecond)
                .strongReference(true).description("COPY bytes committed per second since the stream started")
                .tags(tags).register(registry);
        return gauges;
    }

    @Override
    public void partitionStarted(StreamPlan stream, PartitionPlan partition, int attempt) {
        gauges(stream).attemptStarted(partition.index());
    }

    @Override
    public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                  Duration backoff) {
        gauges(stream).attemptEnded(partition.index()); // it starts again after the backoff
        Counter.builder("sluice.partition.retries").description("Partition attempts retried after a transient failure")
                .baseUnit("retries").tags(tags(stream)).register(registry).increment();
    }

    @Override
    public void partitionFinished(StreamPlan stream, PartitionReport report) {
        Tags tags = tags(stream);
        gauges(stream).partitionFinished(report);
        Counter.builder("sluice.partitions").description("Partitions finished, by state (done, failed, cancelled)")
                .baseUnit("partitions").tags(tags.and("state", report.state().name().toLowerCase(Locale.ROOT)))
                .register(registry).increment();
        Timer.builder("sluice.partition.duration").description("Time to copy one partition, all attempts")
                .tags(tags).register(registry).record(report.duration());
        if (report.state() == PartitionReport.State.DONE) {
            Counter.builder("sluice.copied.rows").baseUnit("rows").description("Rows committed to the target")
                    .tags(tags).register(registry).increment(report.rowsWritten());
            Counter.builder("sluice.copied.bytes").baseUnit("bytes").description("COPY bytes committed")
                    .tags(tags).register(registry).increment(report.bytes());
            if (stream.spec().rejects().isPresent()) { // present (at 0) for every stream that sets rows aside
                Counter.builder("sluice.rows.rejected").description("Rows set aside in the rejects "
                        + "table (rejects:), committed with their partition").tags(tags).register(registry)
                        .increment(report.rowsRejected());
            }
        }
    }

    @Override
    public void changesStarted(String feed, String mode, String from, java.util.Optional<String> upTo) {
        lag(feed);
        for (String kind : new String[]{"insert", "update", "delete", "truncate"}) {
            changes(feed, kind).increment(0); // present from the start, at 0
        }
    }

    @Override
    public void changesApplied(String feed, ChangeBatch batch,
                               ChangeApplier.Applied applied, long bytesBehind) {
        changes(feed, "insert").increment(applied.inserts());
        changes(feed, "update").increment(applied.updates());
        changes(feed, "delete").increment(applied.deletes());
        changes(feed, "truncate").increment(applied.truncates());
        Counter.builder("sluice.changes.transactions").baseUnit("transactions").description("Source transactions "
                + "applied to the target").tags(feedTags(feed)).register(registry).increment(batch.transactions());
        lag(feed).set(bytesBehind);
    }

    @Override
    public void changesFinished(ChangeReport report) {
        lag(report.feed()).set(report.bytesBehind());
    }

    @Override
    public void changesRetrying(String feed, SluiceException cause, int failures, int maxAttempts,
                                Duration backoff) {
        Counter.builder("sluice.changes.retries").baseUnit("retries").description("Times a following run opened its "
                + "change feed again after a passing failure").tags(feedTags(feed)).register(registry).increment();
    }

    private Counter changes(String feed, String kind) {
        return Counter.builder("sluice.changes.applied").description("Row changes applied to "
                + "the target, by kind").tags(feedTags(feed).and("kind", kind)).register(registry);
    }

    private java.util.concurrent.atomic.AtomicLong lag(String feed) {
        return lags.computeIfAbsent(feed, f -> {
            java.util.concurrent.atomic.AtomicLong value = new java.util.concurrent.atomic.AtomicLong();
            Gauge.builder("sluice.changes.lag.bytes", value, java.util.concurrent.atomic.AtomicLong::get)
                    .strongReference(true).baseUnit("bytes").description("Source log (WAL) not yet applied to the "
                            + "target").tags(feedTags(f)).register(registry);
            return value;
        });
    }

    private Tags feedTags(String feed) {
        return Tags.of("pipeline", plan.spec().name(), "feed", feed, "run_id", runId);
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        gauges(stream).finish();
    }

    private StreamGauges gauges(StreamPlan stream) {
        return streams.computeIfAbsent(stream.name(), name -> register(tags(stream)));
    }

    private Tags tags(StreamPlan stream) {
        return Tags.of("pipeline", plan.spec().name(), "stream", stream.name(),
                "connector", plan.spec().connection(stream.spec().source().connection()).type(),
                "degree", Integer.toString(stream.degree()), "run_id", runId);
    }
}
