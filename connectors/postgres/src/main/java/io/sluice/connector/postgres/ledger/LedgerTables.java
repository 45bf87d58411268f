package io.sluice.connector.postgres.ledger;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;

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

    /** How long a read of the ledger waits for a lock someone holds on it: the stream's lock-timeout. */
    private volatile java.time.Duration lockTimeout = io.sluice.spi.LockWaits.DEFAULT_TIMEOUT;

    void lockTimeout(java.time.Duration timeout) {
        this.lockTimeout = java.util.Objects.requireNonNull(timeout, "timeout is null");
    }

    /**
     * A control connection for reading the ledger, in a transaction that waits at most the lock-timeout for a lock
     * (a ledger table someone holds locked fails the read with PG420 instead of hanging); giving it back ends it.
     */
    ControlConnection reading() throws ConnectorException, java.sql.SQLException {
        ControlConnection control = control().readOnly();
        try {
            java.sql.Connection c = control.connection();
            c.setAutoCommit(false);
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("SET LOCAL lock_timeout = '" + Math.max(1, lockTimeout.toMillis()) + "ms'");
            }
            return control;
        } catch (java.sql.SQLException | RuntimeException e) {
            control.close();
            throw e;
        }
    }

    ControlConnection control() throws ConnectorException {
        checkName();
        return connections.control("the run ledger in schema " + quotedSchema);
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
            TableLocks.Holders holders = new TableLocks(connections, io.sluice.spi.LockWaits.silent(lockTimeout))
                    .holders(List.of(table("run_streams"), table("run_partitions"), table("run_marks"),
                            table("run_attempts")), TableLocks.Mode.ACCESS_SHARE, -1);
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
