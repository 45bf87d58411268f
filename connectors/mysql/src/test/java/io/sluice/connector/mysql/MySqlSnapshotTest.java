package io.sluice.connector.mysql;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceSession;
import io.sluice.testkit.TestingMariaDb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one moment of a MySQL source asks and holds: a user without LOCK TABLES (or RELOAD, for a query) is refused at
 * plan time, naming the privilege and both ways on; while a snapshot session is open the table cannot be truncated
 * or altered under it (the metadata lock its transactions took), and once it closes it can.
 */
class MySqlSnapshotTest {
    private static TestingMariaDb server;
    private static String database;

    @BeforeAll
    static void start() throws Exception {
        server = TestingMariaDb.start();
        database = server.createDatabase("snap");
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)");
            s.execute("INSERT INTO t SELECT seq, 'x' FROM seq_1_to_100");
            s.execute("CREATE TABLE old (id INT PRIMARY KEY, v TEXT) ENGINE = MyISAM");
            s.execute("INSERT INTO old SELECT seq, 'x' FROM seq_1_to_100");
            s.execute("CREATE USER 'reader'@'%' IDENTIFIED BY 'reader-pw'");
            s.execute("GRANT SELECT ON `" + database + "`.* TO 'reader'@'%'");
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static Connector connector(String user, String password) {
        return new MySqlConnectorFactory().create(new ConnectionConfig("my", Options.of(MySqlOptions.CONNECTION,
                Map.of("url", server.jdbcUrl(database), "user", user, "password", password)), Path.of("."),
                Path.of(".")));
    }

    @Test
    void aUserWithoutTheLockPrivilegeIsRefusedAtPlanTimeNamingIt() throws Exception {
        try (Connector connector = connector("reader", "reader-pw")) {
            Source table = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("table", "t")));
            assertDoesNotThrow(() -> table.checkSnapshot(1), "one reader needs no lock: its transaction is one moment");
            ConnectorException e = assertThrows(ConnectorException.class, () -> table.checkSnapshot(2));
            assertEquals(MySqlCode.MY103.name(), e.code());
            assertTrue(e.getMessage().contains("LOCK TABLES privilege"), e.getMessage());
            assertTrue(e.fix().orElseThrow().contains("GRANT LOCK TABLES") && e.fix().get().contains("consistency: "
                    + "none"), e.fix().orElseThrow());
            assertFalse(e.getMessage().contains("reader-pw"), e.getMessage());

            Source query = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("query", "SELECT * FROM t")));
            ConnectorException q = assertThrows(ConnectorException.class, () -> query.checkSnapshot(2));
            assertTrue(q.getMessage().contains("RELOAD"), q.getMessage());
        }
        try (Connector connector = connector(server.user(), server.password())) {
            Source table = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("table", "t")));
            assertDoesNotThrow(() -> table.checkSnapshot(2));
            Source query = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("query", "SELECT * FROM t")));
            assertDoesNotThrow(() -> query.checkSnapshot(2));
        }
    }

    @Test
    void aTableCannotBeTruncatedOrAlteredUnderAnOpenSnapshot() throws Exception {
        try (Connector connector = connector(server.user(), server.password());
             Connection other = server.connect(database); Statement s = other.createStatement()) {
            Source table = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("table", "t")));
            s.execute("SET SESSION lock_wait_timeout = 1");
            try (SourceSession session = table.openSession(Consistency.SNAPSHOT)) {
                assertTrue(session.snapshotMode().startsWith("snapshot"), session.snapshotMode());
                SQLException truncate = assertThrows(SQLException.class, () -> s.execute("TRUNCATE TABLE t"));
                assertEquals(1205, truncate.getErrorCode(), truncate.getMessage());
                SQLException alter = assertThrows(SQLException.class, () -> s.execute("ALTER TABLE t ADD COLUMN w "
                        + "INT"));
                assertEquals(1205, alter.getErrorCode(), alter.getMessage());
                s.execute("INSERT INTO t VALUES (1000, 'new')"); // InnoDB: writers go on, the snapshot holds
            }
            s.execute("DELETE FROM t WHERE id = 1000");
            s.execute("ALTER TABLE t ADD COLUMN w INT");
            s.execute("ALTER TABLE t DROP COLUMN w");
        }
    }

    @Test
    void aMyIsamTableIsReadUnderALockHeldUntilTheSessionCloses() throws Exception {
        try (Connector connector = connector(server.user(), server.password());
             Connection other = server.connect(database); Statement s = other.createStatement()) {
            Source old = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("table", "old")));
            s.execute("SET SESSION lock_wait_timeout = 1");
            try (SourceSession session = old.openSession(Consistency.SNAPSHOT)) {
                assertTrue(session.snapshotMode().contains("LOCK TABLES ... READ held"), session.snapshotMode());
                SQLException insert = assertThrows(SQLException.class, () -> s.execute("INSERT INTO old VALUES "
                        + "(1000, 'new')"));
                assertEquals(1205, insert.getErrorCode(), insert.getMessage());
            }
            s.execute("INSERT INTO old VALUES (1000, 'new')");
            s.execute("DELETE FROM old WHERE id = 1000");
        }
        try (Connector connector = connector("reader", "reader-pw")) {
            Source old = connector.sources().orElseThrow()
                    .open(Options.of(MySqlOptions.SOURCE, Map.of("table", "old")));
            ConnectorException e = assertThrows(ConnectorException.class, () -> old.checkSnapshot(1),
                    "even one reader needs the lock on a MyISAM table");
            assertEquals(MySqlCode.MY103.name(), e.code());
        }
    }
}
