package io.sluice.connector.postgres.session;

import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.Redactor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the probe of a kept session's socket sees, on a real server: nothing while the session idles; the byte a
 * server sent unasked (a notification), which the next reader still gets, so PgJDBC reads the whole message; the end
 * of a session the server terminated.
 */
class ProbedSocketTest {
    private static TestingPostgres server;
    private static String database;

    @BeforeAll
    static void setUp() {
        server = TestingPostgres.shared();
        database = server.createDatabase("probed");
    }

    @Test
    void anUnaskedMessageIsReadWholeAfterTheProbeAndTheSessionIsKept() throws Exception {
        try (PostgresConnections connections = connections()) {
            Connection c = connections.open("test");
            try {
                assertEquals(ProbedSocket.Probe.QUIET, connections.probe(c), "an idle session says nothing");
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN sluice_probe");
                }
                admin("SELECT pg_notify('sluice_probe', 'hello')");
                awaitProbe(connections, c, ProbedSocket.Probe.SPOKE);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
                    rs.next();
                    assertEquals(42, rs.getInt(1), "the session still answers");
                }
                PGNotification[] got = c.unwrap(PGConnection.class).getNotifications();
                assertNotNull(got);
                assertEquals(1, got.length);
                assertEquals("hello", got[0].getParameter(), "the byte the probe read went to PgJDBC");
                assertEquals(ProbedSocket.Probe.QUIET, connections.probe(c));
            } finally {
                c.close();
            }
        }
    }

    @Test
    void aTerminatedSessionIsSeenEndedAndTheLeaseOpensANewOne() throws Exception {
        try (PostgresConnections connections = connections()) {
            int ended;
            Connection kept;
            try (ControlConnection control = connections.control("test")) {
                kept = control.connection();
                ended = backend(kept);
            }
            admin("SELECT pg_terminate_backend(" + ended + ", 10000)");
            assertNotEquals(ProbedSocket.Probe.QUIET, connections.probe(kept), "the server's last words are there");
            try (ControlConnection control = connections.control("test")) {
                assertNotEquals(ended, backend(control.connection()));
            }
            assertTrue(kept.isClosed(), "the ended session is closed, not handed on");
        }
    }

    /** Waits, at most ten seconds, for the server's message to reach the socket. */
    private static void awaitProbe(PostgresConnections connections, Connection c, ProbedSocket.Probe expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        ProbedSocket.Probe seen = connections.probe(c);
        while (seen != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
            seen = connections.probe(c);
        }
        assertEquals(expected, seen);
    }

    private static void admin(String query) throws SQLException {
        try (Connection admin = server.connect(database); Statement s = admin.createStatement()) {
            s.execute(query);
        }
    }

    private static int backend(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static PostgresConnections connections() {
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        return new PostgresConnections(() -> server.jdbcUrl(database), properties,
                new PostgresErrors(Redactor.none()));
    }
}
