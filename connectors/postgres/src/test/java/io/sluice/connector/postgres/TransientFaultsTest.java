package io.sluice.connector.postgres;

import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;
import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.Redactor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real faults are classified as passing ones, so the runner retries them: a backend terminated mid-COPY on either
 * side, a source server restarting mid-read, too many connections. An interrupted writer commits nothing.
 */
class TransientFaultsTest {
    private static final int ROWS = 300_000;
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("faults");
        harness.sourceSql("CREATE TABLE big (id int, pad text)",
                "INSERT INTO big SELECT g, repeat('z', 100) FROM generate_series(1, " + ROWS + ") AS g");
        harness.targetSql("CREATE TABLE big (id int, pad text)");
    }

    private static SourceProjection project(Source source) throws ConnectorException {
        return source.project(source.columns().stream().map(c -> new ColumnPair(c, c)).toList());
    }

    /** Ends the backends of {@code database} that run a COPY whose text starts with {@code prefix}. */
    private static int terminateCopies(String database, String prefix) throws SQLException {
        try (Connection c = harness.server.connect("postgres"); PreparedStatement p = c.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                        + "WHERE datname = ? AND query LIKE ? AND pid <> pg_backend_pid()")) {
            p.setString(1, database);
            p.setString(2, prefix + "%");
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void aWriterWhoseBackendIsTerminatedMidCopyFailsTransientlyAndCommitsNothing() throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("big"));
        SourceProjection projection = source.project(source.columns().stream().map(c -> new ColumnPair(c, c))
                .toList());
        Target target = harness.targetConnector.targets().orElseThrow().open(targetTable("big"));
        List<Column> columns = target.table().columns();
        SourcePartition all = source.plan(new PlanRequest(Distribution.none(), 1, ROWS)).get(0);
        AtomicBoolean terminated = new AtomicBoolean();
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
             PartitionReader reader = session.openReader(all, projection);
             PartitionWriter writer = ContractSource.appendTo(target).openWriter(columns, projection.format())) {
            CopySink killing = (buffer, offset, length) -> {
                writer.write(buffer, offset, length);
                if (terminated.compareAndSet(false, true)) {
                    try {
                        assertEquals(1, terminateCopies(harness.targetDb, "COPY \"public\".\"big\""),
                                "the writer's backend");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
            ConnectorException e = assertThrows(ConnectorException.class, () -> {
                reader.transferTo(killing);
                writer.finish();
                writer.commit();
            });
            assertEquals(ErrorKind.TRANSIENT, e.kind(), e.getMessage());
            assertTrue(e.kind().isRetryable());
            writer.abort();
        }
        assertEquals("0", harness.query(harness.targetDb, "SELECT count(*) FROM big"));
    }

    @Test
    void aReaderWhoseBackendIsTerminatedMidCopyFailsTransiently() throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("big"));
        SourceProjection projection = project(source);
        SourcePartition all = source.plan(new PlanRequest(Distribution.none(), 1, ROWS)).get(0);
        AtomicBoolean terminated = new AtomicBoolean();
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
             PartitionReader reader = session.openReader(all, projection)) {
            ConnectorException e = assertThrows(ConnectorException.class, () -> reader.transferTo(
                    (buffer, offset, length) -> {
                        if (terminated.compareAndSet(false, true)) {
                            try {
                                assertEquals(1, terminateCopies(harness.sourceDb, "COPY (SELECT"));
                            } catch (SQLException ex) {
                                throw new IllegalStateException(ex);
                            }
                        }
                    }));
            assertEquals(ErrorKind.TRANSIENT, e.kind(), e.getMessage());
        }
    }

    @Test
    void aSourceServerRestartMidReadFailsTransientlyAndAFreshReaderThenSucceeds() throws Exception {
        try (TestingPostgres own = TestingPostgres.start()) {
            String database = own.createDatabase("restart");
            try (Connection c = own.connect(database); var s = c.createStatement()) {
                s.execute("CREATE TABLE big (id int, pad text)");
                s.execute("INSERT INTO big SELECT g, repeat('r', 100) FROM generate_series(1, " + ROWS + ") AS g");
            }
            Connector connector = connector(own, database);
            Source source = connector.sources().orElseThrow().open(sourceTable("big"));
            SourceProjection projection = project(source);
            SourcePartition all = source.plan(new PlanRequest(Distribution.none(), 1, ROWS)).get(0);
            AtomicBoolean restarted = new AtomicBoolean();
            try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
                 PartitionReader reader = session.openReader(all, projection)) {
                ConnectorException e = assertThrows(ConnectorException.class, () -> reader.transferTo(
                        (buffer, offset, length) -> {
                            if (restarted.compareAndSet(false, true)) {
                                own.restart();
                            }
                        }));
                assertEquals(ErrorKind.TRANSIENT, e.kind(), e.getMessage());
            }
            // What a retry does: a new session and reader on the restarted server read everything.
            Source again = connector(own, database).sources().orElseThrow().open(sourceTable("big"));
            try (SourceSession session = again.openSession(Consistency.SNAPSHOT);
                 PartitionReader reader = session.openReader(all, project(again))) {
                assertEquals(ROWS, reader.transferTo((buffer, offset, length) -> { }));
            }
        }
    }

    private static Connector connector(TestingPostgres server, String database) {
        return new PostgresConnectorFactory().create(new ConnectionConfig("pg", Options.of(PostgresOptions.CONNECTION,
                Map.of("url", server.jdbcUrl(database), "user", server.user(), "password", server.password())),
                Path.of("."), Path.of("target")));
    }

    @Test
    void tooManyConnectionsIsTransient() throws Exception {
        String role = "one_conn_" + ProcessHandle.current().pid();
        harness.sourceSql("CREATE ROLE " + role + " LOGIN PASSWORD 'one-conn-pw' CONNECTION LIMIT 1");
        Connector asRole = new PostgresConnectorFactory().create(new ConnectionConfig("pg",
                Options.of(PostgresOptions.CONNECTION, Map.of("url", harness.server.jdbcUrl(harness.sourceDb),
                        "user", role, "password", "one-conn-pw")), Path.of("."), Path.of("target")));
        try (Connection held = java.sql.DriverManager.getConnection(harness.server.jdbcUrl(harness.sourceDb), role,
                "one-conn-pw")) {
            ConnectorException e = assertThrows(ConnectorException.class,
                    () -> asRole.sources().orElseThrow().open(sourceTable("big")).columns());
            assertEquals(ErrorKind.TRANSIENT, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("53300"), e.getMessage());
            assertTrue(held.isValid(1));
        }
        ConnectorException mapped = new PostgresErrors(Redactor.none())
                .translate(new SQLException("sorry, too many clients already", "53300"),
                        PostgresErrors.Phase.COPY, "copying");
        assertEquals(ErrorKind.TRANSIENT, mapped.kind());
    }
}
