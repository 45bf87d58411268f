package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * pgcopydb as a user runs it, a fresh work directory each run, a filters file that names the tables, its defaults
 * otherwise: {@code copy table-data --table-jobs N} to copy the data of many tables, or {@code copy data --table-jobs N
 * --index-jobs N} to copy a table and then build the source's indexes on the target, several at once (both also run
 * VACUUM ANALYZE on the copied tables, which pgcopydb counts in its own time). Skipped without pgcopydb on the PATH
 * (Debian: {@code apt-get install pgcopydb}).
 */
final class PgcopydbScenario implements Scenario {
    private final ScenarioInfo info;
    private final Optional<Path> pgcopydb;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final List<String> tables;
    private final String arguments;
    private final List<String> sourceSetupSql;
    private final Path logDirectory;

    private PgcopydbScenario(ScenarioInfo info, Optional<Path> pgcopydb, PgEndpoint source, PgEndpoint target,
                             List<String> tables, String arguments, List<String> sourceSetupSql, Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.pgcopydb = requireNonNull(pgcopydb, "pgcopydb is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.tables = List.copyOf(requireNonNull(tables, "tables is null"));
        this.arguments = requireNonNull(arguments, "arguments is null");
        this.sourceSetupSql = List.copyOf(requireNonNull(sourceSetupSql, "sourceSetupSql is null"));
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    /** {@code pgcopydb copy table-data --table-jobs <degree>} on {@code tables}. */
    static PgcopydbScenario tableData(ScenarioInfo info, Optional<Path> pgcopydb, PgEndpoint source,
                                      PgEndpoint target, List<String> tables, Path logDirectory) {
        return new PgcopydbScenario(info, pgcopydb, source, target, tables, "copy table-data --table-jobs "
                + info.degree(), List.of(), logDirectory);
    }

    /**
     * {@code pgcopydb copy data --table-jobs <degree> --index-jobs <degree>} on {@code table}, which {@code
     * sourceSetupSql} (idempotent) creates in the source with its indexes before the first run, untimed.
     */
    static PgcopydbScenario dataWithIndexes(ScenarioInfo info, Optional<Path> pgcopydb, PgEndpoint source,
                                            PgEndpoint target, String table, List<String> sourceSetupSql,
                                            Path logDirectory) {
        return new PgcopydbScenario(info, pgcopydb, source, target, List.of(table), "copy data --table-jobs "
                + info.degree() + " --index-jobs " + info.degree(), sourceSetupSql, logDirectory);
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
    public void prepare() throws ScenarioFailure {
        if (sourceSetupSql.isEmpty() || skipReason().isPresent()) {
            return;
        }
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            for (String sql : sourceSetupSql) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new ScenarioFailure("cannot prepare the source for pgcopydb: " + e.getMessage(), e);
        }
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
        String shell = "PGPASSWORD=\"$SRC_PASSWORD\" " + pgcopydb.orElseThrow() + " " + arguments + " --dir '" + work
                + "' --source '" + uri(source) + "' --target '" + uri(target) + "' --filters '" + filters + "'";
        return TimedProcess.runTool("pgcopydb", info, runNumber, List.of("bash", "-c", shell),
                Map.of("SRC_PASSWORD", source.password()), logDirectory);
    }

    private static String uri(PgEndpoint e) {
        return "postgresql://" + e.user() + "@" + e.host() + ":" + e.port() + "/" + e.database();
    }
}
