package io.sluice.connector.postgres;

import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.toolkit.Redactor;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Describing, planning, the ledger and truncation share one kept connection per database, and a lease never hands on
 * a connection in a state the next user did not ask for: a transaction left open or failed closes it.
 */
class ControlConnectionTest {
    private static TestingPostgres server;
    private static String database;

    @BeforeAll
    static void setUp() {
        server = TestingPostgres.shared();
        database = server.createDatabase("control");
    }

    @Test
    void aCleanLeaseIsReusedInAutocommitMode() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            int first;
            try (ControlConnection control = connections.control("test")) {
                first = backend(control.connection());
            }
            try (ControlConnection control = connections.control("test")) {
                // A ledger-style transaction, committed: the connection comes back with autocommit on again.
                control.connection().setAutoCommit(false);
                assertEquals(first, backend(control.connection()));
                control.connection().commit();
            }
            try (ControlConnection control = connections.control("test")) {
                assertEquals(first, backend(control.connection()));
                assertTrue(control.connection().getAutoCommit());
                assertEquals("postgres", setting(control.connection(), "IntervalStyle"));
                assertTrue(setting(control.connection(), "DateStyle").startsWith("ISO"));
            }
        }
    }

    @Test
    void aLeaseEndingInsideATransactionIsNotReused() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            int open;
            try (ControlConnection control = connections.control("test")) {
                control.connection().setAutoCommit(false);
                open = backend(control.connection()); // a transaction is now in progress, never ended
            }
            int failed;
            try (ControlConnection control = connections.control("test")) {
                failed = backend(control.connection());
                assertNotEquals(open, failed, "an open transaction was handed on");
                control.connection().setAutoCommit(false);
                try (Statement s = control.connection().createStatement()) {
                    assertThrows(SQLException.class, () -> s.execute("SELECT 1/0"));
                }
            }
            try (ControlConnection control = connections.control("test")) {
                assertNotEquals(failed, backend(control.connection()), "a failed transaction was handed on");
                assertTrue(control.connection().getAutoCommit());
            }
        }
    }

    @Test
    void aKeptConnectionWhoseSessionEndedIsReplaced() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            int ended;
            try (ControlConnection control = connections.control("test")) {
                ended = backend(control.connection());
            }
            terminate(ended); // as a server restart or an administrator would: the kept connection still looks open
            try (ControlConnection control = connections.control("test")) {
                assertNotEquals(ended, backend(control.connection()));
            }
        }
    }

    @Test
    void concurrentLeasesGetTheirOwnConnectionsAndOneIsKept() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            ControlConnection a = connections.control("a");
            ControlConnection b = connections.control("b");
            int backendA = backend(a.connection());
            int backendB = backend(b.connection());
            assertNotEquals(backendA, backendB);
            a.close();
            b.close();
            assertFalse(a.connection().isClosed(), "the first one back is kept");
            assertTrue(b.connection().isClosed(), "a second idle connection is not kept");
            try (ControlConnection again = connections.control("c")) {
                assertEquals(backendA, backend(again.connection()));
            }
            connections.close();
            assertTrue(a.connection().isClosed(), "close() ends the kept connection");
        }
    }

    @Test
    void aConnectionIdleForLongerThanTheLimitIsReplaced() throws Exception {
        try (PostgresConnections connections = connections(Duration.ZERO)) {
            ControlConnection first = connections.control("test");
            int backend = backend(first.connection());
            first.close();
            try (ControlConnection control = connections.control("test")) {
                assertNotEquals(backend, backend(control.connection()));
            }
            assertTrue(first.connection().isClosed(), "the stale connection is closed, not leaked");
        }
    }

    @Test
    void qualifyingLeasesHaveTheirOwnKeptSessionWithAnEmptySearchPath() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            int first;
            try (ControlConnection qualifying = connections.qualifying("test")) {
                first = backend(qualifying.connection());
                assertEquals("\"\"", setting(qualifying.connection(), "search_path"));
                assertEquals("force_generic_plan", setting(qualifying.connection(), "plan_cache_mode"));
            }
            try (ControlConnection control = connections.control("test")) {
                assertNotEquals(first, backend(control.connection()), "a control lease has a session of its own");
                assertNotEquals("\"\"", setting(control.connection(), "search_path"));
            }
            try (ControlConnection qualifying = connections.qualifying("test")) {
                assertEquals(first, backend(qualifying.connection()), "kept for the next qualifying read");
            }
        }
    }

    private static void terminate(int backend) throws SQLException {
        try (Connection admin = server.connect(database); Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_terminate_backend(" + backend + ", 10000)")) {
            rs.next();
            assertTrue(rs.getBoolean(1), "backend " + backend + " did not end");
        }
    }

    private static PostgresConnections connections(Duration maxIdle) {
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        return new PostgresConnections(() -> server.jdbcUrl(database), properties,
                new PostgresErrors(Redactor.none()), maxIdle);
    }

    private static int backend(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String setting(Connection connection, String name) throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
