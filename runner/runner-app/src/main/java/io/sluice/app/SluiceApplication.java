package io.sluice.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.app.cli.SluiceCommand;
import io.sluice.app.metrics.MetricsRunListener;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import picocli.CommandLine;

/** The Spring Boot side: runs the Picocli command line with beans injected into the commands. */
@SpringBootApplication
public class SluiceApplication implements CommandLineRunner, ExitCodeGenerator {
    private final CommandLine.IFactory factory;
    private int exitCode;

    public SluiceApplication(CommandLine.IFactory factory) {
        this.factory = factory;
    }

    /** The meters of the one run this process makes; the registry is Boot's Prometheus one (see --metrics-push). */
    @Bean
    MetricsRunListener metricsRunListener(MeterRegistry registry) {
        return new MetricsRunListener(registry);
    }

    @Override
    public void run(String... args) {
        exitCode = SluiceCommand.commandLine(factory).execute(args);
    }

    @Override
    public int getExitCode() {
        return exitCode;
    }
}
