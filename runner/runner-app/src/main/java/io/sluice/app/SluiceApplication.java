package io.sluice.app;

import io.sluice.app.cli.SluiceCommand;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.core.env.Environment;
import picocli.CommandLine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Spring Boot side of {@code run}, started only when Boot configuration is present ({@link BootSettings}): it
 * reads Boot's own Pushgateway properties through Boot's configuration sources and runs the same command line.
 * Deliberately without auto-configuration, component scanning or beans: a batch run needs nothing else from the
 * context, and every bean costs start-up time the run pays.
 */
@SpringBootConfiguration
public class SluiceApplication implements CommandLineRunner, ExitCodeGenerator {
    private static final String PUSHGATEWAY = "management.prometheus.metrics.export.pushgateway.";

    private final Environment environment;
    private int exitCode;

    public SluiceApplication(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void run(String... args) {
        exitCode = SluiceCommand.commandLine(CommandLine.defaultFactory())
                .execute(withPushgatewayProperties(args));
    }

    /**
     * Boot's own Pushgateway properties ({@code management.prometheus.metrics.export.pushgateway.enabled},
     * {@code .address}, {@code .scheme}, {@code .push-rate}) work for {@code run} as if {@code --metrics-push} had been
     * given, through the same publisher; an explicit option wins.
     */
    private String[] withPushgatewayProperties(String[] args) {
        List<String> given = List.of(args);
        if (!SluiceCommand.commandName(args).equals("run") || !environment.getProperty(PUSHGATEWAY + "enabled", Boolean.class, false)
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
