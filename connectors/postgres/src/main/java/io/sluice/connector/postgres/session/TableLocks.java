package io.sluice.connector.postgres.session;

import io.sluice.connector.postgres.catalog.ResolvedTable;

import io.sluice.spi.data.LockWaits;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import org.postgresql.PGConnection;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG420;
import static java.util.Objects.requireNonNull;

/**
 * Takes table locks the way a load should wait for them: at once when nobody holds a conflicting lock (one round
 * trip); otherwise it says who holds it ({@link LockWaits#waiting}), waits up to the stream's {@code lock-timeout}, and
 * then fails naming the table and the blocking backends instead of hanging. The timeout also bounds every other lock
 * wait of the transaction ({@code SET LOCAL lock_timeout}).
 */
public final class TableLocks {
    public static final String LOCK_NOT_AVAILABLE = "55P03";

    /** The table lock modes Sluice takes, with those that conflict with each (PostgreSQL's table of conflicts). */
    public enum Mode {
        ACCESS_SHARE("ACCESS SHARE", List.of("AccessExclusiveLock")),
        ROW_EXCLUSIVE("ROW EXCLUSIVE", List.of("ShareLock", "ShareRowExclusiveLock", "ExclusiveLock",
                "AccessExclusiveLock")),
        /** Keeps writers and DDL out, readers in. */
        SHARE("SHARE", List.of("RowExclusiveLock", "ShareUpdateExclusiveLock", "ShareRowExclusiveLock",
                "ExclusiveLock", "AccessExclusiveLock")),
        ACCESS_EXCLUSIVE("ACCESS EXCLUSIVE", List.of("AccessShareLock", "RowShareLock", "RowExclusiveLock",
                "ShareUpdateExclusiveLock", "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock",
                "AccessExclusiveLock"));

        private final String sql;
        private final List<String> conflicting;

        Mode(String sql, List<String> conflicting) {
            this.sql = sql;
            this.conflicting = conflicting;
        }
    }

    private final PostgresConnections connections;
    private final LockWaits waits;

    public TableLocks(PostgresConnections connections, LockWaits waits) {
        this.connections = requireNonNull(connections, "connections is null");
        this.waits = requireNonNull(waits, "waits is null");
    }

    /** Whether LOCK TABLE takes this kind of relation: plain and partitioned tables (not foreign tables, matviews). */
    public static boolean lockable(ResolvedTable table) {
        return table.relkind() == 'r' || table.relkind() == 'p';
    }

    public Duration timeout() {
        return waits.timeout();
    }

    public LockWaits waits() {
        return waits;
    }

    /**
     * Locks {@code tables} (quoted names) in {@code mode} in the open transaction of {@code c} (autocommit off), to
     * {@code why} (e.g. "load it"). A timeout fails with {@code kind}: PREFLIGHT where nothing was written yet.
     */
    public void lock(Connection c, List<String> tables, Mode mode, String why, ErrorKind kind)
            throws SQLException, ConnectorException {
        lock(c, tables, mode, why, kind, java.util.Optional.empty());
    }

    /**
     * {@link #lock(Connection, List, Mode, String, ErrorKind)}, then {@code then}, a query of one boolean, in the same
     * round trip once the lock is held: its answer (false without one).
     */
    public boolean lock(Connection c, List<String> tables, Mode mode, String why, ErrorKind kind,
                        java.util.Optional<String> then) throws SQLException, ConnectorException {
        requireNonNull(tables, "tables is null");
        requireNonNull(then, "then is null");
        if (tables.isEmpty()) {
            return false;
        }
        String names = String.join(", ", tables);
        String lock = "LOCK TABLE " + names + " IN " + mode.sql + " MODE";
        String timeout = "SET LOCAL lock_timeout = '" + waits.timeout().toMillis() + "ms'";
        String after = then.map(q -> "; " + q).orElse("");
        try (Statement s = c.createStatement()) {
            try {
                // One round trip when the lock is free; the savepoint keeps the transaction usable when it is not.
                s.execute("SAVEPOINT sluice_lock; " + timeout + "; " + lock + " NOWAIT; RELEASE SAVEPOINT sluice_lock"
                        + after);
                return answer(s, then.isPresent());
            } catch (SQLException e) {
                if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    throw e;
                }
                s.execute("ROLLBACK TO SAVEPOINT sluice_lock");
            }
            int self = c.unwrap(PGConnection.class).getBackendPID();
            String what = "lock on " + names + " (" + mode.sql + ", to " + why + "), held by "
                    + holders(tables, mode, self).text();
            waits.waiting(what);
            try {
                s.execute(timeout + "; " + lock + "; RELEASE SAVEPOINT sluice_lock" + after);
                return answer(s, then.isPresent());
            } catch (SQLException e) {
                if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    throw e;
                }
                throw timedOut(names, mode, why, holders(tables, mode, self), kind);
            } finally {
                waits.waited(what);
            }
        }
    }

    /** The boolean of the last result of a composite statement just run, which is a query when {@code asked}. */
    private static boolean answer(Statement s, boolean asked) throws SQLException {
        if (!asked) {
            return false;
        }
        ResultSet rs = s.getResultSet();
        while (rs == null) {
            if (!s.getMoreResults() && s.getUpdateCount() == -1) {
                throw new SQLException("the statement after the lock returned no row");
            }
            rs = s.getResultSet();
        }
        try (ResultSet answer = rs) {
            if (!answer.next()) {
                throw new SQLException("the statement after the lock returned no row");
            }
            return answer.getBoolean(1);
        }
    }

    private ConnectorException timedOut(String names, Mode mode, String why, Holders holders, ErrorKind kind) {
        return new ConnectorException(kind, PG420, "gave up after " + seconds(waits.timeout())
                + " waiting to lock " + names + " in " + mode.sql + " mode to " + why + ": held by " + holders.text(),
                "let that session finish or end it" + holders.firstPid().map(pid -> " (SELECT pg_terminate_backend("
                        + pid + ") ends it)").orElse("") + ", or give the stream a longer lock-timeout");
    }

    /** Who holds a lock, for people, and the first one's backend pid for the fix. */
    public record Holders(String text, java.util.Optional<Integer> firstPid) {
    }

    /**
     * The other backends that hold (or queue ahead for) a lock on {@code tables} that conflicts with {@code mode}, for
     * people: pid, user, application, client and state. Read on a connection of its own, so the locking transaction
     * (a snapshot's, say) stays untouched. Never the query text: it may hold literals that are secrets.
     */
    public Holders holders(List<String> tables, Mode mode, int self) {
        String sql = "SELECT l.pid, l.mode, l.granted, a.usename, a.application_name, host(a.client_addr), a.state, "
                + "to_char(a.xact_start, 'YYYY-MM-DD HH24:MI:SS') FROM pg_locks l "
                + "LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
                + "WHERE l.locktype = 'relation' AND l.database = (SELECT oid FROM pg_database "
                + "WHERE datname = current_database()) AND l.relation IN (SELECT to_regclass(t) FROM unnest(?) t) "
                + "AND l.pid <> ? AND l.mode = ANY (?) ORDER BY l.granted DESC, l.pid";
        List<String> found = new ArrayList<>();
        Integer firstPid = null;
        try (ControlConnection control = connections.control("looking up who holds a lock");
             PreparedStatement p = control.connection().prepareStatement(sql)) {
            Connection c = control.connection();
            Array names = c.createArrayOf("text", tables.toArray());
            p.setArray(1, names);
            p.setInt(2, self);
            p.setArray(3, c.createArrayOf("text", mode.conflicting.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next() && found.size() < 5) {
                    firstPid = firstPid == null ? rs.getInt(1) : firstPid;
                    found.add(describe(rs));
                }
            }
        } catch (SQLException | ConnectorException e) {
            return new Holders("another session (it could not be looked up: "
                    + connections.errors().scrub(e.getMessage()) + ")", java.util.Optional.empty());
        }
        return new Holders(found.isEmpty() ? "another session (gone by now)" : String.join("; ", found),
                java.util.Optional.ofNullable(firstPid));
    }

    private static String describe(ResultSet rs) throws SQLException {
        StringBuilder b = new StringBuilder("pid ").append(rs.getInt(1));
        List<String> facts = new ArrayList<>();
        facts.add((rs.getBoolean(3) ? "holds " : "queued for ") + modeName(rs.getString(2)));
        if (rs.getString(4) != null) {
            facts.add("user " + rs.getString(4));
        }
        if (rs.getString(5) != null && !rs.getString(5).isEmpty()) {
            facts.add("application '" + rs.getString(5) + "'");
        }
        if (rs.getString(6) != null) {
            facts.add("client " + rs.getString(6));
        }
        if (rs.getString(7) != null) {
            facts.add(rs.getString(7) + (rs.getString(8) != null ? " in a transaction since " + rs.getString(8) : ""));
        }
        return b.append(" (").append(String.join(", ", facts)).append(")").toString();
    }

    /** {@code RowExclusiveLock} as PostgreSQL's docs and LOCK TABLE write it: ROW EXCLUSIVE. */
    private static String modeName(String lockName) {
        String bare = lockName.endsWith("Lock") ? lockName.substring(0, lockName.length() - 4) : lockName;
        return bare.replaceAll("([a-z])([A-Z])", "$1 $2").toUpperCase(Locale.ROOT);
    }

    public static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
