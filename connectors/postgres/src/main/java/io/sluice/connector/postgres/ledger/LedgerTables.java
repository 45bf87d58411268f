package io.sluice.connector.postgres.ledger;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.data.LockWaits;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where the run ledger's tables live and how they are reached: the schema (validated on use, so a bad name surfaces
 * as a {@link ConnectorException} of the first call), a short-lived control connection per call, and the translation
 * of SQL failures into errors that say how to make the ledger usable. Every text stored passes the connection's secret
 * scrubber here.
 */
public final class LedgerTables {
    static final String LEDGER_FIX_TAIL = "or set ledger-schema: to a schema this user may create tables in, "
            + "or ledger: off in the spec (no resume)";
    /** PostgreSQL keeps NAMEDATALEN - 1 bytes of a name and silently cuts longer ones. */
    private static final int MAX_NAME_BYTES = 63;

    private final PostgresConnections connections;
    private final String schema;
    private final String quotedSchema;

    LedgerTables(PostgresConnections connections, String schema) {
        this.connections = requireNonNull(connections, "connections is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.quotedSchema = validName(schema) ? SqlQuote.identifier(schema) : "\"?\"";
        this.locks = new TableLocks(connections, LockWaits.silent(
                LockWaits.DEFAULT_TIMEOUT));
    }

    private static boolean validName(String schema) {
        return !schema.isEmpty() && schema.indexOf('\0') < 0
                && schema.getBytes(StandardCharsets.UTF_8).length <= MAX_NAME_BYTES;
    }

    String schema() {
        return schema;
    }


    String quotedSchema() {
        return quotedSchema;
    }

    /** A ledger table's qualified, quoted name. */
    String table(String name) {
        return quotedSchema + "." + name;
    }

    /** How the ledger waits for a lock someone holds on it: the stream's lock-timeout, its waits told. */
    private volatile TableLocks locks;

    void waitForLocks(TableLocks locks) {
        this.locks = requireNonNull(locks, "locks is null");
    }

    TableLocks locks() {
        return locks;
    }

    /** A statement of the ledger waited for a lock longer than its try may. */
    static final class LockedLedger extends Exception {
        LockedLedger() {
            super(null, null, false, false);
        }
    }

    /** One try of the ledger's work that waits at most {@code lockTimeout} for a lock. */
    @FunctionalInterface
    interface Try<T> {
        T run(java.time.Duration lockTimeout) throws ConnectorException, LockedLedger;
    }

    /**
     * Runs {@code work} with a first try that gives up on a lock soon ({@link PostgresConnections#LEDGER_LOCK_TIMEOUT},
     * the ledger session's own setting): a ledger table someone holds locked is then said, with who holds it, before
     * the rest of the lock-timeout is waited in a second try from the start.
     */
    <T> T waitingForLocks(Try<T> work) throws ConnectorException {
        TableLocks waits = locks;
        java.time.Duration timeout = waits.timeout();
        java.time.Duration first = timeout.compareTo(PostgresConnections.LEDGER_LOCK_TIMEOUT) < 0 ? timeout
                : PostgresConnections.LEDGER_LOCK_TIMEOUT;
        try {
            return work.run(first);
        } catch (LockedLedger locked) {
            if (first.equals(timeout)) {
                throw timedOut(waits, timeout);
            }
            String what = "lock on the run ledger in schema " + quotedSchema + " (to record the run), held by "
                    + holders(waits).text();
            waits.waits().waiting(what);
            try {
                return work.run(timeout.minus(first));
            } catch (LockedLedger stillLocked) {
                throw timedOut(waits, timeout);
            } finally {
                waits.waits().waited(what);
            }
        }
    }

    /** On a ledger session, a try waiting other than the session's own: its transaction says how long. */
    static void waitAtMost(Connection c, java.time.Duration lockTimeout) throws SQLException {
        if (!lockTimeout.equals(PostgresConnections.LEDGER_LOCK_TIMEOUT)) {
            execute(c, "SET LOCAL lock_timeout = '" + Math.max(1, lockTimeout.toMillis()) + "ms'");
        }
    }

    /** Whether {@code e} (or a cause) is a lock wait that timed out. */
    static boolean lockTimedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && TableLocks.LOCK_NOT_AVAILABLE.equals(s.getSQLState())) {
                return true;
            }
            if (t instanceof ConnectorException c && c.code().equals(PostgresCode.PG420.name())) {
                return true;
            }
        }
        return false;
    }

    /** A read of the ledger on a connection, in one statement. */
    @FunctionalInterface
    interface Read<T> {
        T run(Connection c) throws SQLException, ConnectorException;
    }

    /**
     * Reads the ledger on a session of its own, in autocommit (one statement, one round trip), waiting for locks as
     * {@link #waitingForLocks} does; a ledger never created reads as {@code noLedger}.
     */
    <T> T read(String what, T noLedger, Read<T> read) throws ConnectorException {
        return waitingForLocks(lockTimeout -> {
            try (ControlConnection control = control().readOnly()) {
                Connection c = control.connection();
                if (!lockTimeout.equals(PostgresConnections.LEDGER_LOCK_TIMEOUT)) {
                    c.setAutoCommit(false); // a second try's own wait; giving the lease back rolls it back
                    waitAtMost(c, lockTimeout);
                }
                return read.run(c);
            } catch (SQLException e) {
                if (noLedger(e)) {
                    return noLedger;
                }
                if (lockTimedOut(e)) {
                    throw new LockedLedger();
                }
                throw failure(e, what);
            }
        });
    }

    /** A session of the ledger's own ({@link PostgresConnections#ledger}): its statements wait a second for a lock. */
    ControlConnection control() throws ConnectorException {
        checkName();
        return connections.ledger("the run ledger in schema " + quotedSchema);
    }

    private TableLocks.Holders holders(TableLocks waits) {
        return waits.holders(List.of(table("run_streams"), table("run_partitions"), table("run_marks"),
                table("run_attempts")), TableLocks.Mode.ROW_EXCLUSIVE, -1);
    }

    private ConnectorException timedOut(TableLocks waits, java.time.Duration timeout) {
        TableLocks.Holders holders = holders(waits);
        return new ConnectorException(ErrorKind.FAILED, PostgresCode.PG420, "gave up after "
                + TableLocks.seconds(timeout) + " waiting for a lock on the run ledger in schema " + quotedSchema
                + ": held by " + holders.text(), "let that session finish or end it" + holders.firstPid().map(pid ->
                " (SELECT pg_terminate_backend(" + pid + ") ends it)").orElse("") + ", or give the stream a longer "
                + "lock-timeout");
    }

    void checkName() throws ConnectorException {
        if (!validName(schema)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresLedgerStore.LEDGER_UNUSABLE, "ledger-schema '"
                    + connections.errors().scrub(schema) + "' is not a usable schema name (empty, NUL, or longer "
                    + "than " + MAX_NAME_BYTES + " bytes)", "set ledger-schema: to a shorter name");
        }
    }

    /** Reading a ledger that was never created finds nothing recorded, rather than failing {@code sluice status}. */
    static boolean noLedger(SQLException e) {
        return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState());
    }

    ConnectorException failure(SQLException e, String what) {
        ConnectorException translated = connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, what);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        // Cannot create the schema or use its tables: the user can fix that only by grants or by spec.
        if (state.equals("42501") || state.equals("3F000") || state.equals("42P01")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, PostgresLedgerStore.LEDGER_UNUSABLE, translated.getMessage(),
                    "let an administrator run CREATE SCHEMA " + quotedSchema + " AUTHORIZATION <this user> "
                            + "(or GRANT CREATE ON DATABASE to this user), " + LEDGER_FIX_TAIL,
                    translated.getCause());
        }
        if (state.equals(TableLocks.LOCK_NOT_AVAILABLE)) {
            java.time.Duration lockTimeout = locks.timeout();
            TableLocks.Holders holders = locks.holders(List.of(table("run_streams"), table("run_partitions"),
                    table("run_marks"), table("run_attempts")), TableLocks.Mode.ACCESS_SHARE, -1);
            return new ConnectorException(ErrorKind.FAILED, PostgresCode.PG420, "gave up after "
                    + TableLocks.seconds(lockTimeout) + " waiting for a lock on the run ledger in schema "
                    + quotedSchema + " (" + what + "): held by " + holders.text(), "let that session finish or end "
                    + "it" + holders.firstPid().map(pid -> " (SELECT pg_terminate_backend(" + pid + ") ends it)")
                    .orElse("") + ", or give the stream a longer lock-timeout", translated.getCause());
        }
        return translated;
    }

    String scrub(String text) {
        return connections.errors().scrub(text);
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static void setNullable(PreparedStatement p, int index, Optional<String> value) throws SQLException {
        if (value.isPresent()) {
            p.setString(index, value.get());
        } else {
            p.setNull(index, Types.VARCHAR);
        }
    }

    static OffsetDateTime timestamp(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    static Optional<Instant> instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return Optional.ofNullable(value).map(OffsetDateTime::toInstant);
    }

    static void rollbackQuietly(Connection c) {
        try {
            if (!c.isClosed() && !c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException | RuntimeException ignored) {
            // a broken connection rolled back on the server already
        }
    }
}
