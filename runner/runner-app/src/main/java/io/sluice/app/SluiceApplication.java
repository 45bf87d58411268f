package io.sluice.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.app.cli.SluiceCommand;
import io.sluice.app.metrics.MetricsRunListener;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ExitCodeGenerator;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.spring.PicocliSpringFactory;
import org.springframework.context.annotation.Bean;
import picocli.CommandLine;

/**
 * The Spring Boot side of {@code run} and {@code plan}: runs the Picocli command line with beans injected into the
 * commands. Deliberately without auto-configuration or component scanning: a batch run needs only the beans below,
 * and scanning the web and actuator auto-configurations (there for {@code serve}) cost seconds of every run.
 */
@SpringBootConfiguration
public class SluiceApplication implements CommandLineRunner, ExitCodeGenerator {
    private static final String PUSHGATEWAY = "management.prometheus.metrics.export.pushgateway.";

    private final CommandLine.IFactory factory;
    private final Environment environment;
    private int exitCode;

    public SluiceApplication(CommandLine.IFactory factory, Environment environment) {
        this.factory = factory;
        this.environment = environment;
    }

    /** The registry the run's meters live in; --metrics-push sends it to a Pushgateway. */
    @Bean
    PrometheusMeterRegistry prometheusMeterRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    @Bean
    static CommandLine.IFactory picocliFactory(ApplicationContext context) {
        return new PicocliSpringFactory(context);
    }

    /** The meters of the one run this process makes. */
    @Bean
    MetricsRunListener metricsRunListener(MeterRegistry registry) {
        return new MetricsRunListener(registry);
    }

    @Override
    public void run(String... args) {
        exitCode = SluiceCommand.commandLine(factory).execute(withPushgatewayProperties(args));
    }

    /**
     * Boot's own Pushgateway properties ({@code management.prometheus.metrics.export.pushgateway.enabled},
     * {@code .address}, {@code .scheme}, {@code .push-rate}) work for {@code run} as if {@code --metrics-push} had been
     * given, through the same publisher; an explicit option wins.
     */
    private String[] withPushgatewayProperties(String[] args) {
        List<String> given = List.of(args);
        boolean run = given.stream().filter(a -> !a.startsWith("-")).findFirst().filter("run"::equals).isPresent();
        if (!run || !environment.getProperty(PUSHGATEWAY + "enabled", Boolean.class, false)
                || given.stream().anyMatch(a -> a.startsWith("--metrics-push"))) {
            return args;
        }
        List<String> effective = new ArrayList<>(given);
        effective.add("--metrics-push=" + environment.getProperty(PUSHGATEWAY + "scheme", "http") + "://"
                + environment.getProperty(PUSHGATEWAY + "address", "localhost:9091"));
        Duration rate = environment.getProperty(PUSHGATEWAY + "push-rate", Duration.class);
        if (rate != null) {
            effective.add("--metrics-push-interval=" + Math.max(1, rate.toSeconds()));
        }
        return effective.toArray(String[]::new);
    }

    @Override
    public int getExitCode() {
        return exitCode;
    }
}
