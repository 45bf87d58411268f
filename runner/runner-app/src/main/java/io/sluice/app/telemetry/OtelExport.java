package io.sluice.app.telemetry;

import io.micrometer.core.instrument.Clock;
import io.micrometer.registry.otlp.OtlpConfig;
import io.micrometer.registry.otlp.OtlpMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.sluice.app.metrics.MetricsRunListener;
import io.sluice.core.run.context.RunListener;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * Export to an OpenTelemetry collector over OTLP/HTTP, for one process: traces through the OpenTelemetry SDK
 * (configured by its own autoconfiguration from the {@code OTEL_*} settings), the meters Sluice already has through
 * Micrometer's OTLP registry. Closing it sends what is left; a collector that cannot be reached is a warning.
 */
public final class OtelExport implements AutoCloseable {
    private final Optional<OpenTelemetrySdk> sdk;
    private final Optional<OtlpMeterRegistry> meters;

    private OtelExport(Optional<OpenTelemetrySdk> sdk, Optional<OtlpMeterRegistry> meters) {
        this.sdk = sdk;
        this.meters = meters;
    }

    /** Started when the settings ask for it, else empty (nothing is loaded or sent). */
    public static Optional<OtelExport> start(OtelSettings settings) {
        return start(settings, warning -> { });
    }

    /**
     * Started when the settings ask for it, else empty. Settings the SDK refuses (an unknown exporter, a malformed
     * endpoint) leave the export off with a warning saying why: telemetry never stops a load.
     */
    public static Optional<OtelExport> start(OtelSettings settings, Consumer<String> warn) {
        requireNonNull(settings, "settings is null");
        requireNonNull(warn, "warn is null");
        if (!settings.enabled()) {
            return Optional.empty();
        }
        try {
            return Optional.of(create(settings));
        } catch (RuntimeException e) {
            StringBuilder why = new StringBuilder(String.valueOf(e.getMessage()));
            for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
                why.append(": ").append(cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName());
            }
            warn.accept("warning: OpenTelemetry export is off: " + why
                    + " (check the OTEL_* settings; see docs/operations.md, \"OpenTelemetry\")");
            return Optional.empty();
        }
    }

    private static OtelExport create(OtelSettings settings) {
        Optional<OpenTelemetrySdk> sdk = settings.tracesEnabled() ? Optional.of(AutoConfiguredOpenTelemetrySdk
                .builder()
                // Meters go through Micrometer; the SDK sends traces only, over OTLP/HTTP (the JDK's client: no gRPC
                // sender is bundled). Explicit settings still win.
                .addPropertiesSupplier(() -> Map.of("otel.service.name", settings.serviceName(),
                        "otel.exporter.otlp.protocol", "http/protobuf",
                        "otel.metrics.exporter", "none", "otel.logs.exporter", "none"))
                .disableShutdownHook()
                .build().getOpenTelemetrySdk()) : Optional.empty();
        Optional<OtlpMeterRegistry> meters = settings.metricsEnabled() ? Optional.of(new OtlpMeterRegistry(
                otlpConfig(settings), Clock.SYSTEM)) : Optional.empty();
        return new OtelExport(sdk, meters);
    }

    private static OtlpConfig otlpConfig(OtelSettings settings) {
        String url = settings.metricsUrl().orElseThrow();
        String step = settings.metricsStep();
        String serviceName = settings.serviceName();
        return key -> switch (key) {
            case "otlp.url" -> url;
            case "otlp.step" -> step;
            case "otlp.resourceAttributes" -> "service.name=" + serviceName;
            default -> null;
        };
    }

    /** The listeners that feed one run into the export. */
    public List<RunListener> listeners(UnaryOperator<String> redact) {
        List<RunListener> listeners = new ArrayList<>();
        sdk.ifPresent(s -> listeners.add(new RunTracer(s.getTracer("io.sluice"), redact)));
        meters.ifPresent(m -> listeners.add(new MetricsRunListener(m)));
        return listeners;
    }

    /** Sends what is buffered, waiting at most 10 s; problems go to {@code warn}. */
    public void close(Consumer<String> warn) {
        sdk.ifPresent(s -> {
            if (!s.shutdown().join(10, TimeUnit.SECONDS).isSuccess()) {
                warn.accept("warning: OpenTelemetry: not every span could be sent to the collector");
            }
        });
        meters.ifPresent(m -> {
            try {
                m.close(); // publishes once more
            } catch (RuntimeException e) {
                warn.accept("warning: OpenTelemetry: the meters could not be sent: " + e.getMessage());
            }
        });
    }

    @Override
    public void close() {
        close(warning -> { });
    }
}
