package io.sluice.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * DuckDB's own {@code postgres_scanner}: {@code ATTACH} the target (and a PostgreSQL source) and {@code INSERT INTO
 * dst... SELECT ...}, with {@code SET threads=N}. Runs in the harness JVM through DuckDB JDBC, so the client CPU is
 * this JVM's CPU during the run (DuckDB's native threads, and the in-process S3 server when reading from S3).
 */
final class DuckDbScannerScenario implements Scenario {
    private final ScenarioInfo info;
    private final Path extensionDirectory;
    private final Optional<PgEndpoint> source;
    private final PgEndpoint target;
    private final List<String> setupSql;
    private final String selectSql;
    private final int threads;
    private final Optional<String> skipReason;

    /**
     * @param source     attached as {@code src} when present, for a {@code selectSql} reading {@code src.schema.table}
     * @param setupSql   statements before the timed INSERT's ATTACHes, e.g. a {@code CREATE SECRET} for S3
     * @param selectSql  the rows to insert, e.g. {@code SELECT * FROM read_parquet('...')}
     */
    DuckDbScannerScenario(ScenarioInfo info, Path extensionDirectory, Optional<PgEndpoint> source, PgEndpoint target,
                          List<String> setupSql, String selectSql, int threads, Optional<String> skipReason) {
        this.info = requireNonNull(info, "info is null");
        this.extensionDirectory = requireNonNull(extensionDirectory, "extensionDirectory is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.setupSql = List.copyOf(requireNonNull(setupSql, "setupSql is null"));
        this.selectSql = requireNonNull(selectSql, "selectSql is null");
        this.threads = threads;
        this.skipReason = requireNonNull(skipReason, "skipReason is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        return skipReason;
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure {
        Properties p = new Properties();
        p.setProperty("extension_directory", extensionDirectory.toString());
        p.setProperty("autoinstall_known_extensions", "false");
        p.setProperty("autoload_known_extensions", "true");
        List<String> statements = new ArrayList<>();
        statements.add("SET threads = " + threads);
        statements.add("LOAD postgres_scanner");
        statements.addAll(setupSql);
        source.ifPresent(s -> statements.add("ATTACH " + literal(s.libpqConnectionString())
                + " AS src (TYPE postgres, READ_ONLY)"));
        statements.add("ATTACH " + literal(target.libpqConnectionString()) + " AS dst (TYPE postgres)");
        statements.add("INSERT INTO dst." + info.target().qualifiedTable() + " " + selectSql);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuBefore = os.getProcessCpuTime();
        long start = System.nanoTime();
        // Everything from opening DuckDB to closing it is timed, as Sluice's run includes its JVM start.
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:", p)) {
            for (String sql : statements) {
                try (Statement s = duck.createStatement()) { // duckdb_jdbc closes a Statement after a failure
                    s.execute(sql);
                }
            }
        } catch (SQLException e) {
            throw new ScenarioFailure("DuckDB failed: " + e.getMessage(), e);
        }
        double wall = (System.nanoTime() - start) / 1e9;
        long cpu = os.getProcessCpuTime() - cpuBefore;
        return new ToolRun(wall, cpu < 0 ? OptionalDouble.empty() : OptionalDouble.of(cpu / 1e9), OptionalLong.empty());
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
