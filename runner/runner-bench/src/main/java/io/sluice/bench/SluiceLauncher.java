package io.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Runs the real Sluice CLI as a child process the way a user does: through the repository's {@code sluice} launcher
 * (extracted layout, its default JVM options, its start-up archive), pinned to the harness's JDK and to a snapshot
 * of the jar ({@code SLUICE_JAR}). JVM options given to the harness replace the launcher's defaults, as
 * {@code SLUICE_JAVA_OPTS} does.
 */
final class SluiceLauncher {
    private final Path script;
    private final Path javaHome;
    private final Path jar;
    private final List<String> jvmOptions;
    private final Path workDirectory;
    private final Map<String, String> environment;
    /** Run ids get this suffix: an external target keeps its ledger, and a run id is used once per ledger. */
    private final String invocation = java.time.LocalDateTime.now()
            .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmmss"));

    SluiceLauncher(Path script, Path javaHome, Path jar, List<String> jvmOptions, Path workDirectory,
                   Map<String, String> environment) {
        this.script = requireNonNull(script, "script is null");
        this.javaHome = requireNonNull(javaHome, "javaHome is null");
        this.jar = requireNonNull(jar, "jar is null");
        this.jvmOptions = List.copyOf(requireNonNull(jvmOptions, "jvmOptions is null"));
        this.workDirectory = requireNonNull(workDirectory, "workDirectory is null");
        this.environment = Map.copyOf(requireNonNull(environment, "environment is null"));
    }

    Path jar() {
        return jar;
    }

    Path javaHome() {
        return javaHome;
    }

    /** The JVM options Sluice runs with: the harness's, else the launcher's default (sluice script). */
    List<String> effectiveJvmOptions() {
        return jvmOptions.isEmpty() ? List.of("-XX:+UseSerialGC", "-XX:CompileThresholdScaling=4",
                "-XX:Tier4InvocationThreshold=50000", "-XX:Tier4MinInvocationThreshold=6000",
                "-XX:Tier4CompileThreshold=150000", "-XX:Tier4BackEdgeThreshold=400000") : jvmOptions;
    }

    /** Writes the spec to {@code specs/<file>.yaml} in the work folder and returns its path. */
    Path writeSpec(String fileStem, String yaml) throws java.io.IOException {
        Path spec = workDirectory.resolve("specs").resolve(fileStem + ".yaml");
        Files.createDirectories(spec.getParent());
        Files.writeString(spec, yaml);
        return spec;
    }

    TimedProcess.Result run(Path spec, String runId) throws java.io.IOException, InterruptedException {
        return process(spec, runId, List.of(), runId).run();
    }

    /**
     * {@code processes} Sluice processes started at once with {@code --join} on one run id, as a scheduler starts
     * them: the wall time is the last one's end, CPU seconds and peak RSS are the processes' sums (they would be
     * on separate machines), the exit code the first non-zero one.
     */
    TimedProcess.Result runJoined(Path spec, String runId, int processes) throws java.io.IOException,
            InterruptedException {
        List<TimedProcess> started = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            started.add(process(spec, runId, List.of("--join"), runId + "-p" + i));
        }
        return TimedProcess.together(started);
    }

    private TimedProcess process(Path spec, String runId, List<String> extra, String logStem) {
        List<String> command = new ArrayList<>(List.of("bash", script.toString(), "run", spec.toString(),
                "--run-id", runId + "-" + invocation, "--progress-interval", "3600")); // one progress line at most: printing is not measured
        command.addAll(extra);
        Path log = workDirectory.resolve("logs").resolve(logStem + ".log");
        Map<String, String> env = new HashMap<>(environment);
        env.put("JAVA_HOME", javaHome.toString());
        env.put("SLUICE_JAR", jar.toString());
        if (!jvmOptions.isEmpty()) {
            env.put("SLUICE_JAVA_OPTS", String.join(" ", jvmOptions));
        }
        return new TimedProcess(command, env, log);
    }
}
