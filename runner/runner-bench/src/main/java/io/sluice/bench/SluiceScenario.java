package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Sluice, run as the CLI in a child process on a generated spec; or, with {@code joinedProcesses}, as that many
 * processes started at once with {@code --join} on one run, as the pods of an Indexed Job or the mapped tasks of an
 * Airflow DAG run it (docs/operations.md, "Scaling out"): here all on this machine, so the figure is the cost of
 * joining (claims, leases, one JVM each), not the gain of more machines.
 */
final class SluiceScenario implements Scenario {
    private static final Pattern STREAM_DONE = Pattern.compile("^stream \\S+: done, .* in ([0-9]+(?:\\.[0-9]+)?) s\\b");
    private final ScenarioInfo info;
    private final SluiceLauncher launcher;
    private final String specYaml;
    private final Optional<String> skipReason;
    private final int joinedProcesses;
    private Path spec;

    SluiceScenario(ScenarioInfo info, SluiceLauncher launcher, String specYaml, Optional<String> skipReason) {
        this(info, launcher, specYaml, skipReason, 0);
    }

    /** {@code joinedProcesses} &gt; 0: that many processes joined in one run; 0: one process on its own. */
    SluiceScenario(ScenarioInfo info, SluiceLauncher launcher, String specYaml, Optional<String> skipReason,
                   int joinedProcesses) {
        this.info = requireNonNull(info, "info is null");
        this.launcher = requireNonNull(launcher, "launcher is null");
        this.specYaml = requireNonNull(specYaml, "specYaml is null");
        this.skipReason = requireNonNull(skipReason, "skipReason is null");
        if (joinedProcesses < 0) {
            throw new IllegalArgumentException("joinedProcesses must not be negative: " + joinedProcesses);
        }
        this.joinedProcesses = joinedProcesses;
    }

    /**
     * Sum of the streams' own durations from Sluice's summary ({@code stream NAME: done, ... in 2.2 s (...)});
     * empty when the output has another shape. Best effort: it only explains where wall time went.
     */
    static OptionalDouble reportedCopySeconds(Path log) {
        try {
            double total = 0;
            boolean found = false;
            for (String line : Files.readAllLines(log)) {
                Matcher m = STREAM_DONE.matcher(line);
                if (m.find()) {
                    total += Double.parseDouble(m.group(1));
                    found = true;
                }
            }
            return found ? OptionalDouble.of(total) : OptionalDouble.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        if (skipReason.isPresent()) {
            return skipReason;
        }
        if (!Files.isRegularFile(launcher.jar())) {
            return Optional.of("the Sluice jar " + launcher.jar() + " is missing (bench.sh builds it)");
        }
        return Optional.empty();
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        String stem = info.id().replace('/', '-');
        try {
            if (spec == null) {
                spec = launcher.writeSpec(stem, specYaml);
            }
            TimedProcess.Result result = joinedProcesses > 0
                    ? launcher.runJoined(spec, stem + "-run" + runNumber, joinedProcesses)
                    : launcher.run(spec, stem + "-run" + runNumber);
            if (result.exitCode() != 0) {
                throw new ScenarioFailure((joinedProcesses > 0 ? "a joined sluice process" : "sluice")
                        + " exited with " + result.exitCode() + " (spec " + spec + ", log "
                        + result.logFile() + "):\n" + result.logTail(15));
            }
            // Joined processes copy side by side: one log's copy time would not be the run's.
            return joinedProcesses > 0 ? result.run()
                    : result.run().withReportedCopySeconds(reportedCopySeconds(result.logFile()));
        } catch (IOException e) {
            throw new ScenarioFailure("could not run sluice: " + e.getMessage(), e);
        }
    }
}
