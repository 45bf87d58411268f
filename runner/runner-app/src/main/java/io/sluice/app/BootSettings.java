package io.sluice.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * Whether a {@code run} may have Spring Boot configuration to read: Boot's environment variables or system
 * properties ({@code MANAGEMENT_*}, {@code SPRING_*}, {@code management.*}, {@code spring.*}), or an
 * {@code application.properties|yaml|yml} in the working folder or its {@code config/} (Boot's default locations).
 * Starting Spring costs a run about 1.5 s and 2.5 CPU-seconds (docs/benchmarks.md), so it starts only then.
 */
record BootSettings(Map<String, String> environment, Properties systemProperties, Path workingDirectory) {
    private static final List<String> FILES = List.of("application.properties", "application.yaml", "application.yml");

    BootSettings {
        requireNonNull(environment, "environment is null");
        requireNonNull(systemProperties, "systemProperties is null");
        requireNonNull(workingDirectory, "workingDirectory is null");
    }

    static BootSettings ofThisProcess() {
        return new BootSettings(System.getenv(), System.getProperties(), Path.of("").toAbsolutePath());
    }

    boolean present() {
        for (String name : environment.keySet()) {
            if (name.startsWith("MANAGEMENT_") || name.startsWith("SPRING_")) {
                return true;
            }
        }
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith("management.") || name.startsWith("spring.")) {
                return true;
            }
        }
        for (Path folder : List.of(workingDirectory, workingDirectory.resolve("config"))) {
            for (String file : FILES) {
                if (Files.isRegularFile(folder.resolve(file))) {
                    return true;
                }
            }
        }
        return false;
    }
}
