package io.sluice.app.metrics;

import io.prometheus.metrics.exporter.pushgateway.Format;
import io.prometheus.metrics.exporter.pushgateway.PushGateway;
import io.prometheus.metrics.exporter.pushgateway.Scheme;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.RunReport;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * {@code --metrics-push URL}: a batch run has no scrape endpoint, so it pushes its meters to a Prometheus
 * Pushgateway every interval while it runs and once more when it ends. Every push is a PUT of the whole registry
 * (Prometheus text format) to {@code /metrics/job/JOB/KEY/VALUE...}, so the group always holds the run's latest
 * state. A gateway that cannot be reached is a warning, never a failed run.
 */
public final class PushgatewayPublisher implements RunListener, AutoCloseable {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PUSH_TIMEOUT = Duration.ofSeconds(15);

    private final PushGateway gateway;
    private final String target;
    private final Consumer<String> warn;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();

    public PushgatewayPublisher(PrometheusRegistry registry, URI address, String job, Map<String, String> groupingKey,
                                Duration interval, Consumer<String> warn) {
        requireNonNull(registry, "registry is null");
        requireNonNull(address, "address is null");
        requireNonNull(job, "job is null");
        requireNonNull(groupingKey, "groupingKey is null");
        requireNonNull(interval, "interval is null");
        this.warn = requireNonNull(warn, "warn is null");
        PushGateway.Builder builder = PushGateway.builder()
                .registry(registry)
                .scheme(Scheme.fromString(address.getScheme().toLowerCase(Locale.ROOT)))
                .address(address.getAuthority() + (address.getPath() == null ? "" : address.getPath()))
                .job(job)
                .format(Format.PROMETHEUS_TEXT)
                .connectionTimeout(CONNECT_TIMEOUT)
                .readTimeout(PUSH_TIMEOUT.minus(CONNECT_TIMEOUT));
        groupingKey.forEach(builder::groupingKey);
        this.gateway = builder.build();
        this.target = address.getScheme() + "://" + address.getAuthority();
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("sluice-metrics-push").factory());
        timer.scheduleAtFixedRate(this::push, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Parses {@code http://host:port}, {@code https://host:port/prefix} or a bare {@code host:port}. */
    public static URI address(String text) {
        requireNonNull(text, "text is null");
        URI uri = URI.create(text.contains("://") ? text : "http://" + text);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new IllegalArgumentException("expected http://host:port or https://host:port, got '" + text + "'");
        }
        return uri;
    }

    @Override
    public void runFinished(RunReport report) {
        close();
    }

    /** Stops the periodic pushes and pushes the final state; later calls do nothing. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // Let a periodic push in flight end first, so the final state is the last one the gateway gets.
            timer.shutdown();
            try {
                timer.awaitTermination(PUSH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            push();
        }
    }

    private void push() {
        try {
            gateway.push();
        } catch (IOException | RuntimeException e) {
            if (warned.compareAndSet(false, true)) {
                warn.accept("warning: cannot push metrics to the Pushgateway at " + target + ": " + e.getMessage()
                        + " (the run goes on)");
            }
        }
    }
}
