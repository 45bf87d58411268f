package io.sluice.app.serve;

import io.sluice.app.telemetry.OtelSettings;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static java.util.Objects.requireNonNull;

/**
 * {@code sluice serve} as an object: starts the web application on the settings' address and port, tells the
 * port it got, and stops it. The command blocks in {@link #awaitStop()}; tests start and close it themselves.
 */
public final class SluiceServer implements AutoCloseable {
    private final ConfigurableApplicationContext context;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private SluiceServer(ConfigurableApplicationContext context) {
        this.context = requireNonNull(context, "context is null");
        context.addApplicationListener(event -> {
            if (event instanceof org.springframework.context.event.ContextClosedEvent) {
                stopped.countDown();
            }
        });
    }

    public static SluiceServer start(ServeSettings settings) {
        requireNonNull(settings, "settings is null");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ServeApplication.class)
                .web(WebApplicationType.SERVLET)
                // Defaults a deployment may override (environment, application.properties next to the jar).
                .properties(
                        "management.endpoints.web.exposure.include=health,prometheus",
                        "management.endpoint.health.probes.enabled=true",
                        "server.shutdown=graceful")
                .initializers(c -> c.getBeanFactory().registerSingleton("serveSettings", settings))
                // As command-line arguments these win over application.properties, which says "no web server"
                // for the batch commands. The token is not among them: it stays out of the environment.
                .run(arguments(settings));
        return new SluiceServer(context);
    }

    private static String[] arguments(ServeSettings settings) {
        List<String> arguments = new ArrayList<>(List.of("--spring.main.web-application-type=servlet",
                "--server.address=" + settings.bindAddress(), "--server.port=" + settings.port()));
        // The meters go to an OpenTelemetry collector through Boot's OTLP registry when OTEL_* settings name one.
        OtelSettings otel = OtelSettings.fromProcess();
        if (otel.enabled() && otel.metricsEnabled()) {
            arguments.add("--management.otlp.metrics.export.enabled=true");
            arguments.add("--management.otlp.metrics.export.url=" + otel.metricsUrl().orElseThrow());
        }
        return arguments.toArray(String[]::new);
    }

    /** The port the server listens on (the chosen one when the settings asked for 0). */
    public int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    /** Blocks until the server stops (SIGTERM, Ctrl-C or {@link #close()}). */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        context.close();
        stopped.countDown();
    }
}
