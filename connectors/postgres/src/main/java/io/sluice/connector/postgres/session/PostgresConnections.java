// Over 450 lines: every connection to one database is opened, kept and closed here.
package io.sluice.connector.postgres.session;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import org.postgresql.Driver;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG206;
import static java.util.Objects.requireNonNull;

/**
 * Opens connections to one PostgreSQL database. Every connection gets standard_conforming_strings=on, which
 * {@link SqlQuote#literal} relies on. Uses the PgJDBC driver directly rather than DriverManager so another driver on
 * the class path never sees the URL.
 *
 * <p>Describing, planning, preflight, truncation and the ledger share one kept <em>control</em> connection
 * ({@link #control}) instead of a connection each: a run used to open 14 connections to copy an empty table, and each
 * costs a few round trips and a backend start. Copies keep their own connections ({@link ConnectionSlot}), and a
 * stream's readers, writers and claim hand theirs back here when the stream ends ({@link #reuse}), kept apart by
 * {@link Use}, so the next stream of a run starts on open sessions: a thousand small tables used to open five
 * connections each.
 */
public final class PostgresConnections implements AutoCloseable {
    /** The buffer COPY data is packed in, both ways: 64 KiB (CopyOutReader fills it, CopyInWriter sends it). */
    public static final int COPY_BUFFER_BYTES = 1 << 16;
    /**
     * PgJDBC's send buffer ({@code maxSendBufferSize}) for every connection: a packed buffer plus its 5-byte CopyData
     * header. At PgJDBC's 8 KiB default the header was flushed alone ahead of each 64 KiB, a packet of its own.
     */
    public static final int SEND_BUFFER_BYTES = COPY_BUFFER_BYTES + 5;
    /** Where to connect; the embedded endpoint starts its server on first use. */
    @FunctionalInterface
    public interface Endpoint {
        String jdbcUrl() throws ConnectorException;
    }

    private static final Driver DRIVER = new Driver();
    /** A kept control connection idle for longer is not reused: idle_session_timeout or a firewall may have ended it. */
    public static final Duration MAX_CONTROL_IDLE = Duration.ofSeconds(30);
    private static final int VALIDATION_TIMEOUT_SECONDS = 5;

    private final Endpoint endpoint;
    private final Properties properties;
    private final PostgresErrors errors;
    private final Duration maxControlIdle;
    /**
     * Idle sessions kept per use: a few, since streams running side by side (max-parallel-streams) each lease one
     * and a lease inside another takes a second. More come back only when more ran at once; those are closed.
     */
    private static final int KEPT_PER_USE = 4;

    /**
     * Control, qualifying and writer sessions plan their parameterized statements once: those are catalog reads by
     * OID and ledger rows by key, whose plan fits every value, and a custom plan cost 0.3-0.7 ms of planning each time
     * (a thousand small tables: the server's CPU went from about 8 s to 7 s). Their statements on user data carry
     * literals, which a generic plan does not touch. plan_cache_mode is PostgreSQL 12's.
     */
    private static final String GENERIC_PLANS = "SELECT set_config('plan_cache_mode', 'force_generic_plan', false) "
            + "WHERE current_setting('server_version_num')::int >= 120000";

    /**
     * What a kept session was last used for. Each use leaves its own session state (a snapshot reader's isolation
     * level and read-only mode, a claim's application_name), so a session goes back to the use it came from.
     */
    public enum Use {
        /** Readers in an exported snapshot: REPEATABLE READ, read only. */
        SNAPSHOT_READER,
        /** Readers without a snapshot (consistency: none): the session's default isolation. */
        READER,
        /** Writers: their temporary objects are discarded before the session is kept. */
        WRITER,
        /** A target's claim: its advisory locks are released before the session is kept. */
        CLAIM
    }

    private final Kept keptControl = new Kept(KEPT_PER_USE);
    private final Kept keptQualifying = new Kept(1);
    private final Kept keptLedger = new Kept(KEPT_PER_USE);

    private final java.util.EnumMap<Use, Kept> keptByUse = new java.util.EnumMap<>(Use.class);
    /**
     * What this process knows of each session it opened beyond what PgJDBC tracks, so a kept session is not set up
     * again for its next use: its socket (probed instead of asked, {@link ProbedSocket}), its isolation, its name,
     * whether it made temporary objects. Each setting is one round trip a table saved.
     */
    private static final class Session {
        private final ProbedSocket socket; // null: PgJDBC made the socket with the user's factory
        private volatile boolean repeatableRead;
        private volatile String applicationName;
        private volatile boolean temporaryObjects;

        private Session(ProbedSocket socket, String applicationName) {
            this.socket = socket;
            this.applicationName = applicationName;
        }
    }

    /** Every session a PostgresConnections opened, by its connection (each is one session, whoever holds it). */
    private static final java.util.Map<Connection, Session> SESSIONS = java.util.Collections.synchronizedMap(
            new java.util.WeakHashMap<>());
    /** The application_name of the sessions opened from now on, once a run names them ({@link #nameSessions}). */
    private volatile String sessionName;

    public PostgresConnections(Endpoint endpoint, Properties properties, PostgresErrors errors) {
        this(endpoint, properties, errors, MAX_CONTROL_IDLE);
    }

    public PostgresConnections(Endpoint endpoint, Properties properties, PostgresErrors errors, Duration maxControlIdle) {
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
        this.properties = new Properties();
        this.properties.putAll(requireNonNull(properties, "properties is null"));
        this.properties.putIfAbsent("ApplicationName", "sluice");
        // Any server Sluice supports is 9.0 or later: said so, PgJDBC sends the session's name in its start-up message
        // instead of a SET after it, one round trip less on every connection (a one-table run opens seven).
        this.properties.putIfAbsent("assumeMinServerVersion", "9.0");
        this.properties.putIfAbsent("maxSendBufferSize", Integer.toString(SEND_BUFFER_BYTES));
        this.errors = requireNonNull(errors, "errors is null");
        this.maxControlIdle = requireNonNull(maxControlIdle, "maxControlIdle is null");
        for (Use use : Use.values()) {
            keptByUse.put(use, new Kept(KEPT_PER_USE));
        }
    }

    public PostgresErrors errors() {
        return errors;
    }

    /** Where these connections go (lineage names read host, port and database from it). */
    public Endpoint endpoint() {
        return endpoint;
    }

    /**
     * Names the sessions used from now on {@code applicationName} (a run's name, see {@link TargetOwnership}), so
     * that what a killed run left running on the server can be found and ended: new sessions are opened with it, and
     * a kept session is renamed when it is next taken (one round trip, where closing the kept sessions cost a new
     * session each, about 10 ms). An idle kept session holds no transaction, so until then it has nothing to find.
     */
    public void nameSessions(String applicationName) {
        sessionName = requireNonNull(applicationName, "applicationName is null");
    }

    /** A new connection in autocommit mode; {@code purpose} names it in error messages. */
    public Connection open(String purpose) throws ConnectorException {
        String url = endpoint.jdbcUrl();
        Connection connection;
        try {
            String name = sessionName;
            Properties session = properties;
            if (name != null) {
                session = new Properties();
                session.putAll(properties);
                session.setProperty("ApplicationName", name);
            }
            ProbedSockets.Connected<Connection> connected = ProbedSockets.connect(url, session,
                    with -> DRIVER.connect(url, with));
            connection = connected.connection();
            if (connection != null) {
                SESSIONS.put(connection, new Session(connected.socket(), session.getProperty("ApplicationName")));
            }
        } catch (SQLException e) {
            throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot connect for " + purpose);
        }
        if (connection == null) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG206, "the url is not a PostgreSQL JDBC URL",
                    "write it as jdbc:postgresql://host:port/database");
        }
        try {
            if (!connection.unwrap(BaseConnection.class).getStandardConformingStrings()) {
                try (Statement s = connection.createStatement()) {
                    s.execute("SET standard_conforming_strings = on");
                }
            }
            return connection;
        } catch (SQLException e) {
            closeQuietly(connection);
            throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot set up the connection for " + purpose);
        }
    }

    /**
     * A new replication connection ({@code replication=database}, simple queries only), for the replication
     * commands and stream of a logical slot; {@code purpose} names it in error messages.
     */
    public Connection openReplication(String purpose) throws ConnectorException {
        String url = endpoint.jdbcUrl();
        Properties session = new Properties();
        session.putAll(properties);
        String name = sessionName;
        if (name != null) {
            session.setProperty("ApplicationName", name);
        }
        session.setProperty("replication", "database");
        session.setProperty("assumeMinServerVersion", "10");
        session.setProperty("preferQueryMode", "simple");
        try {
            Connection connection = DRIVER.connect(url, session);
            if (connection == null) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG206, "the url is not a PostgreSQL JDBC URL",
                        "write it as jdbc:postgresql://host:port/database");
            }
            return connection;
        } catch (SQLException e) {
            throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot open a replication connection for "
                    + purpose);
        }
    }

    /**
     * A connection for describing, planning, preflight, truncation and the ledger, in autocommit mode with ISO dates
     * and {@code postgres} intervals (so boundary literals read the same everywhere): the kept one when it is idle
     * and still answers, else a new one. Closing the lease keeps the connection for the next control use when it
     * ended cleanly.
     */
    public ControlConnection control(String purpose) throws ConnectorException {
        return lease(keptControl, purpose, "SET IntervalStyle = 'postgres'; " + GENERIC_PLANS);
    }

    /**
     * A control connection whose session has an empty search_path, for catalog reads that must print every name
     * schema-qualified (pg_get_expr, pg_get_constraintdef, format_type, regclass), as pg_dump reads them. A session of
     * its own rather than a search_path set per read: PgJDBC drops every prepared statement of a session whose
     * search_path changes (PostgreSQL 18 reports it), and the server plans such reads afresh each time.
     */
    public ControlConnection qualifying(String purpose) throws ConnectorException {
        return lease(keptQualifying, purpose, "SET IntervalStyle = 'postgres'; SET search_path = ''; "
                + GENERIC_PLANS);
    }

    /**
     * How long a statement of the ledger's own sessions ({@link #ledger}) waits for a lock, as their session's
     * setting: the ledger's first try, after which it says who holds the lock and waits the rest in a try of its own.
     */
    public static final Duration LEDGER_LOCK_TIMEOUT = Duration.ofSeconds(1);

    /**
     * A control connection of the run ledger's own, whose session waits {@link #LEDGER_LOCK_TIMEOUT} for a lock: the
     * ledger's reads and short transactions need no {@code SET LOCAL lock_timeout} of their own (one round trip each,
     * seven a small table), and no other user of a control connection inherits that setting.
     */
    public ControlConnection ledger(String purpose) throws ConnectorException {
        return lease(keptLedger, purpose, "SET IntervalStyle = 'postgres'; SET lock_timeout = '"
                + LEDGER_LOCK_TIMEOUT.toMillis() + "ms'; " + GENERIC_PLANS);
    }

    /** A kept session last used for {@code use} when one is idle and still answers, else a new one. */
    public Connection reuse(Use use, String purpose) throws ConnectorException {
        Connection kept = keptByUse.get(requireNonNull(use, "use is null")).take();
        if (kept != null) {
            return kept;
        }
        Connection connection = open(purpose);
        if (use == Use.WRITER) { // its partitions' ledger rows
            try (Statement s = connection.createStatement()) {
                s.execute(GENERIC_PLANS);
            } catch (SQLException e) {
                closeQuietly(connection);
                throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot set up the connection for " + purpose);
            }
        }
        return connection;
    }

    /**
     * Back from {@code use} with no transaction open: kept for the next {@link #reuse} once what the use leaves in
     * the session is undone (a writer's temporary tables and functions, a claim's advisory locks); closed when that
     * fails, when a transaction is open, or when enough are kept.
     */
    public void keep(Use use, Connection connection) {
        requireNonNull(use, "use is null");
        if (connection == null) {
            return;
        }
        Session session = SESSIONS.get(connection);
        String reset = switch (use) {
            // a merge's staging table is made for one target's columns
            case WRITER -> session == null || session.temporaryObjects ? "DISCARD TEMP" : null;
            case CLAIM -> "SELECT pg_advisory_unlock_all()";
            case SNAPSHOT_READER, READER -> null;
        };
        if (reset != null) {
            try {
                if (connection.isClosed()
                        || connection.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE) {
                    closeQuietly(connection);
                    return;
                }
                connection.setAutoCommit(true);
                try (Statement s = connection.createStatement()) {
                    s.execute(reset);
                }
                if (session != null) {
                    session.temporaryObjects = false;
                }
            } catch (SQLException | RuntimeException e) {
                closeQuietly(connection);
                return;
            }
        }
        keptByUse.get(use).giveBack(connection);
    }

    private ControlConnection lease(Kept slot, String purpose, String setUp) throws ConnectorException {
        Connection kept = slot.take();
        if (kept != null) {
            return new ControlConnection(slot, kept);
        }
        Connection connection = open(purpose);
        try (Statement s = connection.createStatement()) {
            // PgJDBC starts every session with DateStyle ISO; a role's IntervalStyle could differ.
            s.execute(setUp);
        } catch (SQLException e) {
            closeQuietly(connection);
            throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot set up the connection for " + purpose);
        }
        return new ControlConnection(slot, connection);
    }

    /** A few kept idle connections, the last given back first, each with since when it is idle. */
    final class Kept {
        private record Idle(Connection connection, long sinceNanos) {
        }

        private final ReentrantLock lock = new ReentrantLock();
        private final java.util.ArrayDeque<Idle> idle = new java.util.ArrayDeque<>();
        private final int capacity;

        Kept(int capacity) {
            this.capacity = capacity;
        }

        private Connection take() {
            while (true) {
                Idle kept;
                lock.lock();
                try {
                    kept = idle.pollFirst();
                } finally {
                    lock.unlock();
                }
                if (kept == null) {
                    return null;
                }
                // A server that restarted, or an administrator who ended the session, leaves a connection that looks
                // open until it is used, and a connector outlives its server's restarts: each lease checks. The probe
                // sees such an end without a round trip (the server's last words or its closed socket); a session
                // it cannot tell about, or whose server spoke unasked, is asked with an empty query (a round trip,
                // which every lease paid before: 27 of a small table's 110). Skipping the check for a connection
                // back within 0.5 s, as HikariCP does, failed a restart test.
                if (System.nanoTime() - kept.sinceNanos() <= maxControlIdle.toNanos() && alive(kept.connection())
                        && named(kept.connection())) {
                    return kept.connection();
                }
                closeQuietly(kept.connection());
            }
        }

        /**
         * Back from a lease: kept when it is open with no transaction in progress (a statement that failed inside
         * one, or a caller that left one open, closes it), so no state leaks into the next use.
         */
        void giveBack(Connection connection) {
            if (!reusable(connection)) {
                closeQuietly(connection);
                return;
            }
            Connection surplus = connection;
            lock.lock();
            try {
                if (idle.size() < capacity) {
                    idle.addFirst(new Idle(connection, System.nanoTime()));
                    surplus = null;
                }
            } finally {
                lock.unlock();
            }
            closeQuietly(surplus);
        }

        private void close() {
            List<Idle> kept;
            lock.lock();
            try {
                kept = List.copyOf(idle);
                idle.clear();
            } finally {
                lock.unlock();
            }
            kept.forEach(k -> closeQuietly(k.connection()));
        }
    }

    /** Whether {@code connection}'s session carries the current {@link #nameSessions name}, renamed if need be. */
    private boolean named(Connection connection) {
        String name = sessionName;
        if (name == null) {
            return true;
        }
        try {
            nameSession(connection, name);
            return true;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    private boolean alive(Connection connection) {
        ProbedSocket.Probe probe = probe(connection);
        return probe == ProbedSocket.Probe.QUIET || probe == ProbedSocket.Probe.SPOKE && isValid(connection);
    }

    /** What a look at an idle connection's socket sees; SPOKE when it cannot look (a socket factory of the user's). */
    ProbedSocket.Probe probe(Connection connection) {
        Session session = SESSIONS.get(connection);
        return session == null || session.socket == null ? ProbedSocket.Probe.SPOKE : session.socket.probe();
    }

    /**
     * Makes REPEATABLE READ the isolation of the transactions {@code connection} begins from now on (before it begins
     * one): a session that has it already is not asked again.
     */
    public static void repeatableRead(Connection connection) throws SQLException {
        Session session = SESSIONS.get(connection);
        if (session != null && session.repeatableRead) {
            return;
        }
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        if (session != null) {
            session.repeatableRead = true;
        }
    }

    /** Names {@code connection}'s session {@code applicationName}, unless that is its name already. */
    public static void nameSession(Connection connection, String applicationName) throws SQLException {
        requireNonNull(applicationName, "applicationName is null");
        Session session = SESSIONS.get(connection);
        if (session != null && applicationName.equals(session.applicationName)) {
            return;
        }
        try (PreparedStatement p = connection.prepareStatement("SELECT set_config('application_name', ?, false)")) {
            p.setString(1, applicationName);
            p.execute();
        }
        if (session != null) {
            session.applicationName = applicationName;
        }
    }

    /**
     * Says that {@code connection} made temporary objects (a merge's staging table, a screen's function): a writer
     * session is kept after DISCARD TEMP only then.
     */
    public static void madeTemporaryObjects(Connection connection) {
        Session session = SESSIONS.get(connection);
        if (session != null) {
            session.temporaryObjects = true;
        }
    }

    private static boolean isValid(Connection connection) {
        try {
            return connection.isValid(VALIDATION_TIMEOUT_SECONDS);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    private static boolean reusable(Connection connection) {
        try {
            if (connection.isClosed()
                    || connection.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE) {
                return false;
            }
            connection.setAutoCommit(true); // no round trip: nothing is open to commit
            connection.clearWarnings();
            return true;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /** Closes the kept connections; a later {@link #control} or {@link #reuse} opens a new one. */
    @Override
    public void close() {
        keptControl.close();
        keptQualifying.close();
        keptLedger.close();
        keptByUse.values().forEach(Kept::close);
    }

    public static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException ignored) {
            // closing is best effort; the server ends the session when the socket goes away
        }
    }
}
