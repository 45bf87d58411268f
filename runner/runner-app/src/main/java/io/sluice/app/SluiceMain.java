package io.sluice.app;

import io.sluice.app.cli.SluiceCommand;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import picocli.CommandLine;

import java.util.Set;

/**
 * Entry point. Commands that only read files ({@code lint}, {@code connectors}, {@code version}, {@code --help})
 * run in plain Picocli and answer in a few hundred milliseconds; commands that move data start Spring Boot for the
 * metrics wiring.
 */
public final class SluiceMain {
    private static final Set<String> SPRING_COMMANDS = Set.of("run", "plan");

    private SluiceMain() {
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    public static int execute(String[] args) {
        if (needsSpring(args)) {
            return SpringApplication.exit(new SpringApplicationBuilder(SluiceApplication.class)
                    .web(WebApplicationType.NONE)
                    .run(args));
        }
        return SluiceCommand.commandLine(CommandLine.defaultFactory()).execute(args);
    }

    static boolean needsSpring(String[] args) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return false;
            }
        }
        for (String arg : args) {
            if (!arg.startsWith("-")) {
                return SPRING_COMMANDS.contains(arg);
            }
        }
        return false;
    }
}
