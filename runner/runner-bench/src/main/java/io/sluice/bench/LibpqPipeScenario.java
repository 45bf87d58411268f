package io.sluice.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The cheapest client there is: {@code copy_pipe.c} (blocking libpq, one thread, 64 KiB packing), compiled with the
 * machine's C compiler on first use. Its figure is what any client leaves of the target's ingest limit on this
 * machine, so it puts the engine's bars in proportion. Skipped without gcc or libpq's headers.
 */
final class LibpqPipeScenario implements Scenario {
    private static final Path LIBPQ_HEADER = Path.of("/usr/include/postgresql/libpq-fe.h");

    private final ScenarioInfo info;
    private final Optional<Path> gcc;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final String sourceTable;
    private final Path workDirectory;
    private Path program;

    LibpqPipeScenario(ScenarioInfo info, Optional<Path> gcc, PgEndpoint source, PgEndpoint target,
                      String sourceTable, Path workDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.gcc = requireNonNull(gcc, "gcc is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.sourceTable = requireNonNull(sourceTable, "sourceTable is null");
        this.workDirectory = requireNonNull(workDirectory, "workDirectory is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        if (gcc.isEmpty()) {
            return Optional.of("gcc is not on the PATH");
        }
        if (!Files.isReadable(LIBPQ_HEADER)) {
            return Optional.of("libpq's headers are missing (" + LIBPQ_HEADER + "; Debian: libpq-dev)");
        }
        return Optional.empty();
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        return TimedProcess.runTool("libpq pipe", info, runNumber, List.of(program().toString(), sourceTable,
                info.target().qualifiedTable()), Map.of("SRC_CONNINFO", conninfo(source), "DST_CONNINFO",
                conninfo(target)), workDirectory);
    }

    private Path program() throws InterruptedException, ScenarioFailure {
        if (program == null) {
            program = build();
        }
        return program;
    }

    private Path build() throws InterruptedException, ScenarioFailure {
        Path sourceFile = workDirectory.resolve("copy_pipe.c");
        try (InputStream in = LibpqPipeScenario.class.getResourceAsStream("copy_pipe.c")) {
            if (in == null) {
                throw new ScenarioFailure("copy_pipe.c is missing from the harness's resources");
            }
            Files.createDirectories(workDirectory);
            Files.copy(in, sourceFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new ScenarioFailure("could not write copy_pipe.c: " + e.getMessage(), e);
        }
        Path binary = workDirectory.resolve("copy_pipe");
        try {
            TimedProcess.Result build = new TimedProcess(List.of(gcc.orElseThrow().toString(), "-O2", "-o",
                    binary.toString(), sourceFile.toString(), "-I" + LIBPQ_HEADER.getParent(), "-lpq"), Map.of(),
                    workDirectory.resolve("copy_pipe-build.log")).run();
            if (build.exitCode() != 0) {
                throw new ScenarioFailure("gcc could not build copy_pipe.c:\n" + build.logTail(10));
            }
        } catch (IOException e) {
            throw new ScenarioFailure("could not run gcc: " + e.getMessage(), e);
        }
        return binary;
    }

    /** A libpq connection string; values quoted as libpq wants (backslash and single quote escaped). */
    static String conninfo(PgEndpoint e) {
        return "host=" + quote(e.host()) + " port=" + e.port() + " dbname=" + quote(e.database())
                + " user=" + quote(e.user()) + (e.password().isEmpty() ? "" : " password=" + quote(e.password()));
    }

    private static String quote(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
