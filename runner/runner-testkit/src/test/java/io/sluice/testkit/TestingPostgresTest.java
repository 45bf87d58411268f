package io.sluice.testkit;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestingPostgresTest {
    @Test
    void sharedServerRunsSqlInFreshDatabases() throws SQLException {
        TestingPostgres pg = TestingPostgres.shared();
        assertEquals(18, pg.majorVersion(), pg.toString());
        String first = pg.createDatabase("Kit-Test");
        String second = pg.createDatabase("Kit-Test");
        assertNotEquals(first, second);
        assertTrue(first.startsWith("kit_test_"), first);
        try (Connection c = pg.connect(first); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id bigint, v text)");
            s.execute("INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 1000) g");
            assertEquals(1000, count(s, "SELECT count(*) FROM t"));
            // bulk-load settings reach the server
            assertEquals("off", single(s, "SHOW fsync"));
            assertEquals("on", single(s, "SHOW synchronous_commit"), "commits survive crash()");
            assertEquals("200", single(s, "SHOW max_connections"));
            assertEquals(pg.user(), single(s, "SELECT current_user"));
        }
        assertTrue(pg.jdbcUrl(first).endsWith(":" + pg.port() + "/" + first), pg.jdbcUrl(first));
    }

    @Test
    void sharedServerCannotBeStoppedByOneTest() throws SQLException {
        TestingPostgres pg = TestingPostgres.shared();
        assertThrows(IllegalStateException.class, pg::stop);
        assertThrows(IllegalStateException.class, pg::restart);
        pg.close(); // a no-op on the shared server
        try (Connection c = pg.connect("postgres"); Statement s = c.createStatement()) {
            assertEquals(1, count(s, "SELECT 1"));
        }
    }

    @Test
    void ownServerKeepsDataAcrossStopAndRestart() throws SQLException {
        try (TestingPostgres pg = TestingPostgres.start()) {
            assertNotEquals(TestingPostgres.shared().port(), pg.port(), "a second, independent server");
            String db = pg.createDatabase("restart");
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept AS SELECT g AS id FROM generate_series(1, 500) g");
            }
            pg.stop();
            assertFalse(pg.isRunning());
            assertThrows(SQLException.class, () -> pg.connect(db).close());
            pg.restart();
            assertTrue(pg.isRunning());
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                assertEquals(500, count(s, "SELECT count(*) FROM kept"));
            }
            pg.restart(); // restart of a running server works too
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                assertEquals(500, count(s, "SELECT count(*) FROM kept"));
            }
        }
    }

    @Test
    void aCrashKeepsWhatWasCommittedAndEmptiesUnloggedTables() throws SQLException {
        try (TestingPostgres pg = TestingPostgres.start()) {
            String db = pg.createDatabase("crash");
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept AS SELECT g AS id FROM generate_series(1, 500) g");
                s.execute("CREATE UNLOGGED TABLE lost AS SELECT g AS id FROM generate_series(1, 500) g");
                s.execute("INSERT INTO kept VALUES (501)"); // the last commit before the crash
            }
            pg.crash();
            assertFalse(pg.isRunning());
            assertThrows(SQLException.class, () -> pg.connect(db).close());
            pg.restart();
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                assertEquals(501, count(s, "SELECT count(*) FROM kept"), "every acknowledged commit");
                assertEquals(0, count(s, "SELECT count(*) FROM lost"), "crash recovery ran: unlogged tables empty");
            }
        }
    }

    @Test
    void terminateConnectionsEndsOtherSessions() throws SQLException {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("terminate");
        try (Connection victim = pg.connect(db); Statement s = victim.createStatement()) {
            assertEquals(1, count(s, "SELECT 1"));
            assertEquals(1, pg.terminateConnections(db));
            SQLException e = assertThrows(SQLException.class, () -> count(s, "SELECT 1"));
            assertTrue(e.getSQLState().startsWith("57") || e.getSQLState().startsWith("08"), e.getSQLState());
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
