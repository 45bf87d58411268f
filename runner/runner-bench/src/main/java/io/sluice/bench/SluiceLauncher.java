package io.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** Runs the real Sluice CLI ({@code java -jar sluice.jar run SPEC}) as a child process, as a user would. */
final class SluiceLauncher {
    private final Path java;
    private final Path jar;
    private final List<String> jvmOptions;
    private final Path workDirectory;
    private final Map<String, String> environment;

    SluiceLauncher(Path java, Path jar, List<String> jvmOptions, Path workDirectory, Map<String, String> environment) {
        this.java = requireNonNull(java, "java is null");
        this.jar = requireNonNull(jar, "jar is null");
        this.jvmOptions = List.copyOf(requireNonNull(jvmOptions, "jvmOptions is null"));
        this.workDirectory = requireNonNull(workDirectory, "workDirectory is null");
        this.environment = Map.copyOf(requireNonNull(environment, "environment is null"));
    }

    Path jar() {
        return jar;
    }

    /** Writes the spec to {@code specs/<file>.yaml} in the work folder and returns its path. */
    Path writeSpec(String fileStem, String yaml) throws java.io.IOException {
        Path spec = workDirectory.resolve("specs").resolve(fileStem + ".yaml");
        Files.createDirectories(spec.getParent());
        Files.writeString(spec, yaml);
        return spec;
    }

    TimedProcess.Result run(Path spec, String runId) throws java.io.IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "run", spec.toString(), "--run-id", runId,
                // one progress line at most: printing is not what is measured
                "--progress-interval", "3600"));
        Path log = workDirectory.resolve("logs").resolve(runId + ".log");
        return new TimedProcess(command, environment, log).run();
    }
}
