package io.sluice.app;

import io.sluice.app.cli.SluiceCommand;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import picocli.CommandLine;

/**
 * Entry point. Every command runs in plain Picocli; {@code run} starts Spring Boot first only when Boot configuration
 * is present ({@link BootSettings}), so Boot's Pushgateway properties keep working without every run paying for a
 * Spring context. {@code serve} starts its own web application.
 */
public final class SluiceMain {
    private SluiceMain() {
    }

    public static void main(String[] args) {
        SocketPollers.preferPlatformThreads();
        if (StartupTraining.wanted()) { // the launcher's recording JVM: its own work, not a command's
            StartupTraining.train();
            System.exit(0);
        }
        System.exit(execute(args));
    }

    public static int execute(String[] args) {
        // Picocli's default factory otherwise looks for Groovy's Closure class once: a miss that searched every jar on
        // the class path, about 40 ms of each command's start (the start-up cache keeps no misses).
        System.setProperty("picocli.disable.closures", "true");
        if (SluiceCommand.commandName(args).equals("run") && !helpWanted(args) && BootSettings.ofThisProcess().present()) {
            return SpringApplication.exit(new SpringApplicationBuilder(SluiceApplication.class)
                    .web(WebApplicationType.NONE)
                    .run(args));
        }
        return SluiceCommand.commandLine(CommandLine.defaultFactory(), args).execute(args);
    }

    private static boolean helpWanted(String[] args) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return true;
            }
        }
        return false;
    }
}
