package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One Sluice run shared by {@code processes} CLI processes started at once with {@code --join}, as the pods of an
 * Indexed Job or the mapped tasks of an Airflow DAG run it (docs/operations.md, "Scaling out"). Here all of them run
 * on this machine, so the figure is the cost of joining (claims, leases, one JVM each), not the gain of more
 * machines.
 */
final class JoinedSluiceScenario implements Scenario {
    private final ScenarioInfo info;
    private final SluiceLauncher launcher;
    private final String specYaml;
    private final int processes;
    private Path spec;

    JoinedSluiceScenario(ScenarioInfo info, SluiceLauncher launcher, String specYaml, int processes) {
        this.info = requireNonNull(info, "info is null");
        this.launcher = requireNonNull(launcher, "launcher is null");
        this.specYaml = requireNonNull(specYaml, "specYaml is null");
        if (processes < 1) {
            throw new IllegalArgumentException("processes must be at least 1: " + processes);
        }
        this.processes = processes;
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        return Files.isRegularFile(launcher.jar()) ? Optional.empty()
                : Optional.of("the Sluice jar " + launcher.jar() + " is missing (bench.sh builds it)");
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        String stem = info.id().replace('/', '-');
        try {
            if (spec == null) {
                spec = launcher.writeSpec(stem, specYaml);
            }
            TimedProcess.Result result = launcher.runJoined(spec, stem + "-run" + runNumber, processes);
            if (result.exitCode() != 0) {
                throw new ScenarioFailure("a joined sluice process exited with " + result.exitCode() + " (spec "
                        + spec + ", logs next to " + result.logFile() + "):\n" + result.logTail(15));
            }
            return result.run();
        } catch (IOException e) {
            throw new ScenarioFailure("could not run sluice: " + e.getMessage(), e);
        }
    }
}
