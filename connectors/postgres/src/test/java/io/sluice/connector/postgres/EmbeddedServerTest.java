package io.sluice.connector.postgres;

import io.sluice.connector.postgres.session.EmbeddedPostgresServer;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two connections of one spec share one embedded server; its data survives a restart. */
class EmbeddedServerTest {
    @TempDir
    Path state;

    private Connector embedded(String database) {
        return new PostgresConnectorFactory().create(new ConnectionConfig(database,
                Options.of(PostgresOptions.CONNECTION, Map.of("embedded", database)), Path.of("."), state));
    }

    @Test
    void sharedServerSeparateDatabasesSurvivesRestart() throws Exception {
        Connector a = embedded("db_a");
        Connector b = embedded("db_b");
        EmbeddedPostgresServer server = EmbeddedPostgresServer.forDirectory(state.resolve("postgres-18"));
        assertSame(server, EmbeddedPostgresServer.forDirectory(state.resolve("./postgres-18")));
        String notices = String.join("\n", a.notices());
        assertTrue(notices.contains("psql -h localhost -p " + server.port() + " -U postgres -d db_a"), notices);
        assertTrue(notices.contains("fsync off"), notices);

        // First use starts the server and creates the database; the table is not there yet.
        ConnectorException missing = assertThrows(ConnectorException.class,
                () -> a.sources().orElseThrow().open(sourceTable("t")).columns());
        assertEquals(ErrorKind.PREFLIGHT, missing.kind());
        sql(server, "db_a", "CREATE TABLE t (id int, v text)",
                "INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 1000) AS g");
        assertThrows(ConnectorException.class, () -> b.targets().orElseThrow().open(targetTable("t")).table());
        sql(server, "db_b", "CREATE TABLE t (id int, v text)");
        assertEquals(1000, copy(a, b));
        assertTrue(Files.exists(state.resolve("postgres-18/port")));

        server.stop();
        assertEquals(1000, copy(a, b)); // restarted on the same data: source rows still there, target truncated
        assertEquals("1000", scalar(server, "db_b", "SELECT count(*) FROM t"));
        server.stop();
    }

    @Test
    void initScriptRunsOnceWhenTheDatabaseIsCreatedAndAFailureDropsItAgain() throws Exception {
        Path specDir = Files.createDirectories(state.resolve("spec"));
        Files.writeString(specDir.resolve("init.sql"), "CREATE TABLE seeded (id int);"
                + " INSERT INTO seeded SELECT generate_series(1, 42);");
        Files.writeString(specDir.resolve("broken.sql"), "CREATE TABLE half (id int); SELECT no_such_function();");
        Connector seeded = withScript("db_seeded", "init.sql", specDir);
        assertEquals(1, seeded.sources().orElseThrow().open(sourceTable("seeded")).columns().size());
        EmbeddedPostgresServer server = EmbeddedPostgresServer.forDirectory(state.resolve("postgres-18"));
        sql(server, "db_seeded", "INSERT INTO seeded VALUES (43)");

        server.stop(); // a second run: the database exists, so the script does not run again
        Connector again = withScript("db_seeded", "init.sql", specDir);
        assertEquals(1, again.sources().orElseThrow().open(sourceTable("seeded")).columns().size());
        assertEquals("43", scalar(server, "db_seeded", "SELECT count(*) FROM seeded"));

        Connector broken = withScript("db_broken", "broken.sql", specDir);
        ConnectorException failure = assertThrows(ConnectorException.class,
                () -> broken.sources().orElseThrow().open(sourceTable("half")).columns());
        assertEquals("PG404", failure.code());
        assertTrue(failure.getMessage().contains("no_such_function"), failure.getMessage());
        assertEquals("0", scalar(server, "postgres",
                "SELECT count(*) FROM pg_database WHERE datname = 'db_broken'"), "dropped, so a fixed script reruns");
        server.stop();
    }

    private Connector withScript(String database, String script, Path specDir) {
        return new PostgresConnectorFactory().create(new ConnectionConfig(database, Options.of(
                PostgresOptions.CONNECTION, Map.of("embedded", database, "init-script", script)), specDir, state));
    }

    private static long copy(Connector from, Connector to) throws Exception {
        Source source = from.sources().orElseThrow().open(sourceTable("t"));
        Target target = to.targets().orElseThrow().open(targetTable("t"));
        List<Column> columns = target.table().columns();
        SourceProjection projection = source.project(source.columns().stream()
                .map(c -> new ColumnPair(c, columns.stream().filter(t -> t.name().equals(c.name())).findFirst()
                        .orElseThrow())).toList());
        ContractSource.appendTo(target).truncate();
        long rows = 0;
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT)) {
            for (var partition : source.plan(new PlanRequest(Distribution.none(), 1, 100))) {
                try (PartitionReader reader = session.openReader(partition, projection);
                     PartitionWriter writer = ContractSource.appendTo(target).openWriter(columns, projection.format())) {
                    reader.transferTo(writer);
                    rows += writer.finish();
                    writer.commit();
                }
            }
        }
        return rows;
    }

    private static void sql(EmbeddedPostgresServer server, String db, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static String scalar(EmbeddedPostgresServer server, String db, String query) throws Exception {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            assertFalse(rs.getString(1).isEmpty());
            return rs.getString(1);
        }
    }
}
