package io.sluice.bench;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * {@link JavaCopyPipe} in a JVM of its own, started like Sluice (same JDK, same JVM options) with only the harness's
 * classes and PgJDBC on its class path: what a JVM and PgJDBC cost without Sluice's planning, snapshot and partitions.
 */
final class JavaPipeScenario implements Scenario {
    private final ScenarioInfo info;
    private final Path javaHome;
    private final List<String> jvmOptions;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final String sourceTable;
    private final Path logDirectory;

    JavaPipeScenario(ScenarioInfo info, Path javaHome, List<String> jvmOptions, PgEndpoint source, PgEndpoint target,
                     String sourceTable, Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.javaHome = requireNonNull(javaHome, "javaHome is null");
        this.jvmOptions = List.copyOf(requireNonNull(jvmOptions, "jvmOptions is null"));
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.sourceTable = requireNonNull(sourceTable, "sourceTable is null");
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        return classPath().isEmpty() ? Optional.of("PgJDBC is not on the harness's class path") : Optional.empty();
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath().orElseThrow(), JavaCopyPipe.class.getName(), sourceTable,
                info.target().qualifiedTable()));
        return TimedProcess.runTool("Java pipe", info, runNumber, command, Map.of(
                "SRC_URL", source.jdbcUrl(), "SRC_USER", source.user(), "SRC_PASSWORD", source.password(),
                "DST_URL", target.jdbcUrl(), "DST_USER", target.user(), "DST_PASSWORD", target.password()),
                logDirectory);
    }

    /** The harness's class folders and the PgJDBC jar; empty when PgJDBC is not among them. */
    private static Optional<String> classPath() {
        List<String> entries = new ArrayList<>();
        boolean pgjdbc = false;
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName() == null ? "" : Path.of(entry).getFileName().toString();
            if (name.startsWith("postgresql-") && name.endsWith(".jar")) {
                entries.add(entry);
                pgjdbc = true;
            } else if (!name.endsWith(".jar") && !entry.isEmpty()) {
                entries.add(entry);
            }
        }
        return pgjdbc ? Optional.of(String.join(File.pathSeparator, entries)) : Optional.empty();
    }
}
