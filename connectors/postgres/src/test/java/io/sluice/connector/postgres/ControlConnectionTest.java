package io.sluice.connector.postgres;

import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.connector.postgres.session.TargetOwnership;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.write.TargetClaim;

import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.Redactor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

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
                assertEquals("force_generic_plan", setting(control.connection(), "plan_cache_mode"),
                        "ledger rows by key and catalog reads by OID are planned once");
            }
            Connection writer = connections.reuse(PostgresConnections.Use.WRITER, "a writer");
            try {
                assertEquals("force_generic_plan", setting(writer, "plan_cache_mode"), "its partitions' ledger rows");
            } finally {
                writer.close();
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

    /** A kept session is checked by a look at its socket, not a query: the server saw nothing between the leases. */
    @Test
    void aKeptConnectionIsCheckedWithoutARoundTrip() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            int kept;
            try (ControlConnection control = connections.control("test")) {
                kept = backend(control.connection());
                try (Statement s = control.connection().createStatement()) {
                    s.execute("SELECT 'the last statement'");
                }
            }
            try (ControlConnection control = connections.control("test")) {
                assertEquals("SELECT 'the last statement'", lastQuery(kept), "the lease sent nothing");
                assertEquals(kept, backend(control.connection()));
            }
        }
    }

    /** The statement a backend ran last, as the server shows it. */
    private static String lastQuery(int backend) throws SQLException {
        try (Connection admin = server.connect(database); Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery("SELECT query FROM pg_stat_activity WHERE pid = " + backend)) {
            assertTrue(rs.next(), "backend " + backend + " is gone");
            return rs.getString(1);
        }
    }

    @Test
    void concurrentLeasesGetTheirOwnConnectionsAndAFewAreKept() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            List<ControlConnection> leases = new ArrayList<>();
            Set<Integer> backends = new HashSet<>();
            for (int i = 0; i < 5; i++) {
                leases.add(connections.control("lease " + i));
                backends.add(backend(leases.get(i).connection()));
            }
            assertEquals(5, backends.size(), "each lease has a session of its own");
            leases.forEach(ControlConnection::close);
            for (int i = 0; i < 4; i++) {
                assertFalse(leases.get(i).connection().isClosed(), "the first four back are kept");
            }
            assertTrue(leases.get(4).connection().isClosed(), "a fifth idle connection is not kept");
            try (ControlConnection again = connections.control("again")) {
                assertEquals(backend(leases.get(3).connection()), backend(again.connection()),
                        "the last one back is the next one out");
            }
            connections.close();
            assertTrue(leases.stream().allMatch(l -> isClosed(l.connection())), "close() ends the kept connections");
        }
    }

    /**
     * A claim's session is kept for the next claim once its lock is released: the next stream's claim starts on it,
     * and another run can take the table at once.
     */
    @Test
    void aClosedClaimReleasesItsLockAndHandsItsSessionToTheNextClaim() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            TableLocks locks = new TableLocks(connections, LockWaits.silent(Duration.ofSeconds(5)));
            TargetClaim first = TargetOwnership.claim(connections, "\"public\".\"claimed\"", "run-1", locks, false);
            assertEquals(1, advisoryLocks(), "the claim holds its lock");
            first.close();
            assertEquals(0, advisoryLocks(), "closing the claim released it, though its session lives on");
            try (Connection other = connections.open("another run");
                 Statement s = other.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock(" + 0x736c7563 + ", "
                         + "\"public\".\"claimed\"".hashCode() + ")")) {
                rs.next();
                assertTrue(rs.getBoolean(1), "another session takes the table at once");
            }
            Connection kept = connections.reuse(PostgresConnections.Use.CLAIM, "the next claim");
            try {
                assertEquals(1, count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + backend(kept)
                        + " AND application_name LIKE '%run-1%'"), "the claim's own session came back");
            } finally {
                kept.close();
            }
        }
    }

    private static long advisoryLocks() throws SQLException {
        return count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = " + 0x736c7563
                + "::bigint::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
    }

    private static long count(String query) throws SQLException {
        try (Connection admin = server.connect(database); Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean isClosed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return false;
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

    @Test
    void keptSessionsTakeTheRunsNameWhenNextTakenInsteadOfBeingReopened() throws Exception {
        try (PostgresConnections connections = connections(PostgresConnections.MAX_CONTROL_IDLE)) {
            int control;
            int ledger;
            try (ControlConnection c = connections.control("test"); ControlConnection l = connections.ledger("test")) {
                control = backend(c.connection());
                ledger = backend(l.connection());
                assertEquals("sluice", setting(c.connection(), "application_name"), "named at start-up");
            }
            Connection writer = connections.reuse(PostgresConnections.Use.WRITER, "a writer");
            int written = backend(writer);
            connections.keep(PostgresConnections.Use.WRITER, writer);

            connections.nameSessions("sluice run=r1"); // a run claimed the target: its sessions must be findable
            try (ControlConnection c = connections.control("test"); ControlConnection l = connections.ledger("test")) {
                assertEquals(control, backend(c.connection()), "the kept control session, not a new one");
                assertEquals(ledger, backend(l.connection()), "the kept ledger session, not a new one");
                assertEquals("sluice run=r1", setting(c.connection(), "application_name"));
                assertEquals("sluice run=r1", setting(l.connection(), "application_name"));
            }
            Connection again = connections.reuse(PostgresConnections.Use.WRITER, "a writer");
            try {
                assertEquals(written, backend(again));
                assertEquals("sluice run=r1", setting(again, "application_name"));
            } finally {
                again.close();
            }
            try (ControlConnection fresh = connections.control("test"); ControlConnection second =
                    connections.control("test")) {
                assertEquals("sluice run=r1", setting(second.connection(), "application_name"),
                        "a session opened after the naming has the name from its start");
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
