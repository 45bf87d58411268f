package io.sluice.app.telemetry;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Whether and where to export to OpenTelemetry, read the standard way: the {@code otel.*} system properties, else
 * the {@code OTEL_*} environment variables ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, its {@code _TRACES_} and
 * {@code _METRICS_} variants, {@code OTEL_SDK_DISABLED}, ...). Export is on when an OTLP endpoint is set and the SDK
 * is not disabled; with none set, nothing is started and nothing is sent.
 */
public final class OtelSettings {
    private final Function<String, String> properties;

    OtelSettings(Function<String, String> properties) {
        this.properties = requireNonNull(properties, "properties is null");
    }

    /** The process's own settings: system properties first, then the environment. */
    public static OtelSettings fromProcess() {
        Map<String, String> environment = System.getenv();
        return new OtelSettings(key -> {
            String property = System.getProperty(key);
            return property != null ? property
                    : environment.get(key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
        });
    }

    /** The value of {@code otel.<key>} (e.g. {@code exporter.otlp.endpoint}), trimmed; empty when unset or blank. */
    public Optional<String> get(String key) {
        String value = properties.apply("otel." + key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }

    public boolean enabled() {
        return !"true".equalsIgnoreCase(get("sdk.disabled").orElse("false")) && (tracesEnabled() || metricsEnabled());
    }

    public boolean tracesEnabled() {
        return !"none".equals(get("traces.exporter").orElse("otlp"))
                && (get("exporter.otlp.endpoint").isPresent() || get("exporter.otlp.traces.endpoint").isPresent());
    }

    public boolean metricsEnabled() {
        return !"none".equals(get("metrics.exporter").orElse("otlp")) && metricsUrl().isPresent();
    }

    /** Where OTLP/HTTP metrics go: the metrics endpoint as given, or the general one with {@code /v1/metrics}. */
    public Optional<String> metricsUrl() {
        return get("exporter.otlp.metrics.endpoint").or(() -> get("exporter.otlp.endpoint")
                .map(e -> (e.endsWith("/") ? e.substring(0, e.length() - 1) : e) + "/v1/metrics"));
    }

    /** How often meters are sent while a run goes, {@code otel.metric.export.interval} in ms (default 10 s). */
    public String metricsStep() {
        return get("metric.export.interval").map(ms -> ms + "ms").orElse("10s");
    }

    /** The same settings with meters left out (where Spring Boot's own OTLP registry sends them). */
    public OtelSettings withoutMetrics() {
        return new OtelSettings(key -> key.equals("otel.metrics.exporter") ? "none" : properties.apply(key));
    }

    public String serviceName() {
        return get("service.name").orElse("sluice");
    }
}
