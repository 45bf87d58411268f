package io.sluice.app.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.PartitionReport;
import io.sluice.core.run.RunListener;

import java.time.Duration;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * Run events as Micrometer meters, units in the names and a stable {@code sluice.} prefix (modelled on HikariCP's
 * {@code hikaricp.connections.*}). Tags: pipeline, stream, connector, degree. The engine knows nothing of this.
 */
public final class MetricsRunListener implements RunListener {
    private final MeterRegistry registry;
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
    public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                  Duration backoff) {
        Counter.builder("sluice.partition.retries").description("Partition attempts retried after a transient failure")
                .tags(tags(stream)).register(registry).increment();
    }

    @Override
    public void partitionFinished(StreamPlan stream, PartitionReport report) {
        Tags tags = tags(stream);
        Counter.builder("sluice.partitions").description("Partitions finished, by state")
                .tags(tags.and("state", report.state().name().toLowerCase(Locale.ROOT))).register(registry).increment();
        Timer.builder("sluice.partition.duration").description("Time to copy one partition, all attempts")
                .tags(tags).register(registry).record(report.duration());
        if (report.state() == PartitionReport.State.DONE) {
            Counter.builder("sluice.copied.rows").baseUnit("rows").description("Rows committed to the target")
                    .tags(tags).register(registry).increment(report.rowsWritten());
            Counter.builder("sluice.copied.bytes").baseUnit("bytes").description("COPY bytes committed")
                    .tags(tags).register(registry).increment(report.bytes());
        }
    }

    private Tags tags(StreamPlan stream) {
        return Tags.of("pipeline", plan.spec().name(), "stream", stream.name(),
                "connector", plan.spec().connection(stream.spec().source().connection()).type(),
                "degree", Integer.toString(stream.degree()), "run_id", runId);
    }
}
