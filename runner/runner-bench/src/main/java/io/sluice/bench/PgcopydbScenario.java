package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * pgcopydb as a user runs it to copy the data of many tables: {@code pgcopydb copy table-data --table-jobs N} with a
 * filters file that names the tables, a fresh work directory each run, its defaults otherwise (it also runs
 * VACUUM ANALYZE on the copied tables, which it counts in its own time). Skipped without pgcopydb on the PATH
 * (Debian: {@code apt-get install pgcopydb}).
 */
final class PgcopydbScenario implements Scenario {
    private final ScenarioInfo info;
    private final Optional<Path> pgcopydb;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final List<String> tables;
    private final Path logDirectory;

    PgcopydbScenario(ScenarioInfo info, Optional<Path> pgcopydb, PgEndpoint source, PgEndpoint target,
                     List<String> tables, Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.pgcopydb = requireNonNull(pgcopydb, "pgcopydb is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.tables = List.copyOf(requireNonNull(tables, "tables is null"));
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        return pgcopydb.isPresent() ? Optional.empty() : Optional.of("pgcopydb is not on the PATH");
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        String id = info.id().replace('/', '-');
        Path filters = logDirectory.resolve(id + "-filters.ini");
        Path work = logDirectory.resolve(id + "-run" + runNumber + "-dir");
        try {
            Files.createDirectories(logDirectory);
            Files.writeString(filters, "[include-only-table]\n" + String.join("\n", tables) + "\n");
            BenchPostgresServer.deleteRecursively(work);
        } catch (IOException e) {
            throw new ScenarioFailure("cannot prepare pgcopydb's files: " + e.getMessage(), e);
        }
        // URIs without passwords: libpq takes them from PGPASSWORD-like variables pgcopydb passes on.
        String shell = "PGPASSWORD=\"$SRC_PASSWORD\" " + pgcopydb.orElseThrow() + " copy table-data --dir '" + work
                + "' --source '" + uri(source) + "' --target '" + uri(target) + "' --table-jobs " + info.degree()
                + " --filters '" + filters + "'";
        return TimedProcess.runTool("pgcopydb", info, runNumber, List.of("bash", "-c", shell),
                Map.of("SRC_PASSWORD", source.password()), logDirectory);
    }

    private static String uri(PgEndpoint e) {
        return "postgresql://" + e.user() + "@" + e.host() + ":" + e.port() + "/" + e.database();
    }
}
