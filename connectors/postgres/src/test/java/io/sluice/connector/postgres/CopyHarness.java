package io.sluice.connector.postgres;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.Target;
import io.sluice.spi.write.TargetTable;
import io.sluice.testkit.ContractSource;
import io.sluice.testkit.TestingPostgres;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two databases, a source and a target, on the shared test server (or on two servers, e.g. of different major
 * versions), and the SPI lifecycle the runner drives:
 * columns -> table -> project -> plan -> session -> per worker: readers/writers -> per partition:
 * reader.transferTo(writer) -> finish -> commit.
 */
final class CopyHarness {
    /** The source's server; the target's is {@link #targetServer} (the same one unless given two). */
    final TestingPostgres server;
    final TestingPostgres targetServer;
    final String sourceDb;
    final String targetDb;
    final Connector sourceConnector;
    final Connector targetConnector;

    /** What one copy did, for assertions. */
    record Result(SourceProjection projection, List<SourcePartition> partitions, long rowsRead, long rowsWritten,
                  String snapshotMode) {
    }

    CopyHarness(String prefix) {
        this(TestingPostgres.shared(), TestingPostgres.shared(), prefix);
    }

    CopyHarness(TestingPostgres sourceServer, TestingPostgres targetServer, String prefix) {
        this.server = sourceServer;
        this.targetServer = targetServer;
        sourceDb = sourceServer.createDatabase(prefix + "_src");
        targetDb = targetServer.createDatabase(prefix + "_dst");
        sourceConnector = connector(sourceDb);
        targetConnector = connector(targetDb);
    }

    Connector connector(String database) {
        TestingPostgres on = serverOf(database);
        return connector(on.jdbcUrl(database), on.user(), on.password());
    }

    Connector connector(String url, String user) {
        return connector(url, user, server.password());
    }

    private TestingPostgres serverOf(String database) {
        return database.equals(targetDb) ? targetServer : server;
    }

    private Connector connector(String url, String user, String password) {
        Map<String, Object> values = new HashMap<>();
        values.put("url", url);
        values.put("user", user);
        values.put("password", password);
        try {
            Path state = Files.createTempDirectory("sluice-state");
            return new PostgresConnectorFactory().create(new ConnectionConfig("pg",
                    Options.of(PostgresOptions.CONNECTION, values), Path.of("."), state));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    void sourceSql(String... statements) throws SQLException {
        execute(sourceDb, statements);
    }

    void targetSql(String... statements) throws SQLException {
        execute(targetDb, statements);
    }

    void bothSql(String... statements) throws SQLException {
        execute(sourceDb, statements);
        execute(targetDb, statements);
    }

    void execute(String database, String... statements) throws SQLException {
        try (Connection c = serverOf(database).connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    String query(String database, String sql) throws SQLException {
        try (Connection c = serverOf(database).connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Count and an order-independent hash of the rows' text forms. */
    String fingerprint(String database, String table, String columns) throws SQLException {
        return query(database, "SELECT count(*) || ':' || coalesce(md5(string_agg(r, E'\\n' ORDER BY r)), '-') "
                + "FROM (SELECT ROW(" + columns + ")::text AS r FROM " + table + ") AS x");
    }

    void assertSameRows(String sourceTable, String targetTable, String columns) throws SQLException {
        assertEquals(fingerprint(sourceDb, sourceTable, columns), fingerprint(targetDb, targetTable, columns),
                "rows of " + sourceTable + " and " + targetTable);
    }

    static Options sourceTable(String table) {
        return Options.of(PostgresOptions.SOURCE, Map.of("table", table));
    }

    static Options sourceQuery(String query) {
        return Options.of(PostgresOptions.SOURCE, Map.of("query", query));
    }

    static Options targetTable(String table) {
        return Options.of(PostgresOptions.TARGET, Map.of("table", table));
    }

    static Distribution distribution(DistributionMethod method, String key) {
        return new Distribution(method, Optional.ofNullable(key), Optional.empty());
    }

    Result copy(Options sourceOptions, String target, Distribution distribution, int degree) throws Exception {
        return copy(sourceOptions, target, distribution, degree, 1000, Consistency.SNAPSHOT, null);
    }

    /**
     * Copies with the whole lifecycle; {@code afterSession} runs once the session is open and before any reader
     * starts (to change the source under a snapshot).
     */
    Result copy(Options sourceOptions, String targetName, Distribution distribution, int degree, long batchRows,
                Consistency consistency, SqlAction afterSession) throws Exception {
        Source source = sourceConnector.sources().orElseThrow().open(sourceOptions);
        Target target = targetConnector.targets().orElseThrow().open(targetTable(targetName));
        List<Column> sourceColumns = source.columns();
        TargetTable table = target.table();
        List<ColumnPair> pairs = new ArrayList<>();
        for (Column t : table.columns()) {
            if (t.isGenerated()) {
                continue;
            }
            sourceColumns.stream().filter(s -> s.name().equals(t.name())).findFirst()
                    .ifPresent(s -> pairs.add(new ColumnPair(s, t)));
        }
        SourceProjection projection = source.project(pairs);
        List<SourcePartition> partitions = new ArrayList<>(source.plan(new PlanRequest(distribution, degree,
                batchRows)));
        partitions.sort(Comparator.comparingLong(SourcePartition::estimatedRows).reversed());
        List<Column> targetColumns = pairs.stream().map(ColumnPair::target).toList();
        PlannedLoad load = ContractSource.appendTo(target);
        load.truncate();
        long read = 0;
        long written = 0;
        String mode;
        try (SourceSession session = source.openSession(consistency);
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            mode = session.snapshotMode();
            if (afterSession != null) {
                afterSession.run();
            }
            // Like the runner: degree workers, each keeping its readers and writers (and connections) throughout.
            Queue<SourcePartition> queue = new ConcurrentLinkedQueue<>(partitions);
            List<Future<long[]>> results = new ArrayList<>();
            for (int i = 0; i < Math.min(degree, Math.max(1, partitions.size())); i++) {
                results.add(pool.submit(() -> {
                    long[] counts = {0, 0};
                    try (PartitionReaders readers = session.openReaders(projection);
                         PartitionWriters writers = load.openWriters(targetColumns, projection.format())) {
                        SourcePartition partition;
                        while ((partition = queue.poll()) != null) {
                            try (PartitionReader reader = readers.open(partition);
                                 PartitionWriter writer = writers.open()) {
                                try {
                                    counts[0] += reader.transferTo(writer);
                                    counts[1] += writer.finish();
                                    writer.commit();
                                } catch (ConnectorException | RuntimeException e) {
                                    writer.abort();
                                    throw e;
                                }
                            }
                        }
                    }
                    return counts;
                }));
            }
            for (Future<long[]> f : results) {
                try {
                    long[] rw = f.get();
                    read += rw[0];
                    written += rw[1];
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof Exception cause) {
                        throw cause;
                    }
                    throw e;
                }
            }
        }
        assertEquals(read, written, "rows read and written");
        return new Result(projection, partitions, read, written, mode);
    }

    @FunctionalInterface
    interface SqlAction {
        void run() throws Exception;
    }
}
