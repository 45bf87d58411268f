package io.sluice.connector.postgres.session;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.TargetClaim;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG421;
import static java.util.Objects.requireNonNull;

/**
 * A run's ownership of its target table: a session-level advisory lock keyed on the table's qualified name (not its
 * OID: a replace swaps in a new table under the name, and a created table has none yet), held by a connection
 * of its own for the stream's whole length. That session's {@code application_name} names the run, its process id
 * and host, so a second run (an overlapping scheduler retry, say) that finds the table owned can say by whom; it
 * waits up to the stream's lock-timeout and then fails before it has recorded, truncated or read anything. The lock
 * goes when the claim closes (the session is then kept, unlocked, for the next stream's claim) or its session ends,
 * a killed process included.
 */
public final class TargetOwnership {
    /** The first key of the two-key advisory lock space Sluice's target claims use ('sluc'). */
    static final int LOCK_SPACE = 0x736c7563;
    private static final int MAX_APPLICATION_NAME_BYTES = 63;

    private TargetOwnership() {
    }

    /**
     * The claim of one run; {@code shared}: of one process of a joined run, holding the lock in shared mode with the
     * run's other processes. Sessions of another run then show in the holders, whose application names begin with
     * their run's token, and the claim is refused naming them.
     */
    public static TargetClaim claim(PostgresConnections connections, String table, String runId, TableLocks locks,
                             boolean shared) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        Connection c = connections.reuse(PostgresConnections.Use.CLAIM, "the claim on " + table);
        try {
            int key = table.hashCode(); // String.hashCode is specified, so every process computes the same
            PostgresConnections.nameSession(c, applicationName(runId)); // a kept claim session has it already
            String mode = shared ? "_shared" : "";
            if (!tryLock(c, key, mode)) {
                String what = "ownership of " + table + ", held by " + owner(connections, key);
                locks.waits().waiting(what);
                try (Statement s = c.createStatement()) {
                    s.execute("SET lock_timeout = '" + locks.timeout().toMillis() + "ms'");
                    s.execute("SELECT pg_advisory_lock" + mode + "(" + LOCK_SPACE + ", " + key + ")");
                    s.execute("RESET lock_timeout");
                } catch (SQLException e) {
                    if (!TableLocks.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                        throw e;
                    }
                    throw new ConnectorException(ErrorKind.PREFLIGHT, PG421, "gave up after "
                            + TableLocks.seconds(locks.timeout()) + " waiting for " + table
                            + ": another Sluice run is loading it (" + owner(connections, key) + ")",
                            "let that run finish (or stop it), then run again; a scheduler should not start "
                                    + "a run while the previous one still runs");
                } finally {
                    locks.waits().waited(what);
                }
            }
            if (shared) {
                refuseOtherRuns(connections, table, key, runId);
            }
            return () -> connections.keep(PostgresConnections.Use.CLAIM, c); // released there, or the session ends
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(c);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot claim "
                    + table + " for run " + runId);
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(c);
            throw e;
        }
    }

    private static boolean tryLock(Connection c, int key, String mode) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock" + mode + "(" + LOCK_SPACE + ", " + key
                     + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** A joined run shares the lock with its own processes only: holders of another run's token refuse the claim. */
    private static void refuseOtherRuns(PostgresConnections connections, String table, int key, String runId)
            throws SQLException, ConnectorException {
        String token = runToken(runId);
        List<String> others = new ArrayList<>();
        try (ControlConnection control = connections.control("checking who shares " + table);
             PreparedStatement p = control.connection().prepareStatement("SELECT a.application_name FROM pg_locks l "
                     + "JOIN pg_stat_activity a ON a.pid = l.pid WHERE " + holders(key))) {
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String app = rs.getString(1);
                    if (app == null || !app.startsWith(token)) {
                        others.add(app == null || app.isEmpty() ? "a session" : app);
                    }
                }
            }
        }
        if (!others.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG421, table + " is being loaded by another "
                    + "Sluice run (" + String.join("; ", others) + "); processes joining run " + runId
                    + " share it only with each other", "let that run finish (or stop it), then join again");
        }
    }

    /** The claim's holders: sessions granted the advisory lock of {@code key}, in either mode. */
    private static String holders(int key) {
        return "l.locktype = 'advisory' AND l.granted AND l.classid = " + LOCK_SPACE + "::bigint::oid "
                + "AND l.objid = (" + key + "::bigint & 4294967295)::oid AND l.objsubid = 2";
    }

    /** This machine's name, as the application names of its sessions carry it. */
    static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }

    /** What every session of one run's application name begins with, whatever PostgreSQL cuts off its end. */
    public static String runToken(String runId) {
        return "sluice r=" + HexFormat.of().toHexDigits(runId.hashCode()) + " ";
    }

    /**
     * {@code sluice r=<hash of the run id> run=<id> pid=<pid> host=<host>}, cut to what PostgreSQL keeps of an
     * application name: the hash survives any cut, so the processes of a joined run still recognise each other.
     */
    public static String applicationName(String runId) {
        return cut(runToken(runId) + "run=" + runId + " pid=" + ProcessHandle.current().pid() + " host=" + host());
    }

    /** {@code name} as PostgreSQL keeps an application name: its first 63 bytes, never half a character. */
    private static String cut(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_APPLICATION_NAME_BYTES) {
            return name;
        }
        return new String(bytes, 0, MAX_APPLICATION_NAME_BYTES, StandardCharsets.UTF_8).replace("\uFFFD", "");
    }

    /** Who holds the claim: the holding session's application name (run, pid, host), client and start. */
    private static String owner(PostgresConnections connections, int key) {
        String sql = "SELECT l.pid, a.application_name, host(a.client_addr), "
                + "to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS') FROM pg_locks l "
                + "LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE " + holders(key);
        List<String> found = new ArrayList<>();
        try (ControlConnection control = connections.control("looking up who owns a target");
             Statement s = control.connection().createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                String app = rs.getString(2);
                found.add((app == null || app.isEmpty() ? "a session" : app) + ", backend pid " + rs.getInt(1)
                        + (rs.getString(3) != null ? ", client " + rs.getString(3) : "")
                        + (rs.getString(4) != null ? ", connected since " + rs.getString(4) : ""));
            }
        } catch (SQLException | ConnectorException e) {
            return "a session that could not be looked up: " + connections.errors().scrub(e.getMessage());
        }
        return found.isEmpty() ? "a run that has just finished" : String.join("; ", found);
    }

    /**
     * The application_name of every session a joined process opens after its claim: {@code sluice r=<run hash> <holder>}
     * within 63 bytes. It begins with the run's token, so the sessions stay those of the run (LeftoverSessions), and
     * names the holder, so a process that takes its partitions over can end them.
     */
    public static String sessionTag(String runId, String holder) {
        return cut(runToken(runId) + requireNonNull(holder, "holder is null"));
    }

    /** Ends the sessions named {@code tag}: a joined process whose partitions this one took over. */
    public static void endSessions(PostgresConnections connections, String tag) throws ConnectorException {
        requireNonNull(tag, "tag is null");
        try (ControlConnection control = connections.control("ending the sessions of " + tag);
             PreparedStatement p = control.connection().prepareStatement("SELECT count(pg_terminate_backend(pid)) "
                     + "FROM pg_stat_activity WHERE application_name = ? AND datname = current_database() "
                     + "AND pid <> pg_backend_pid()")) {
            p.setString(1, tag);
            p.execute();
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "ending the sessions of " + tag);
        }
    }
}
