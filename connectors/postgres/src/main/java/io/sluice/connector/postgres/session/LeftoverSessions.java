package io.sluice.connector.postgres.session;

import io.sluice.connector.postgres.catalog.PostgresCode;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a killed Sluice process left running on the target: a session whose statement was under way (an index build
 * waiting for a lock, a DELETE) does not notice its client is gone until the statement ends, and would then race the
 * next run's own statement on the same table (two CREATE INDEX of one name, one of them failing). The next run ends
 * such sessions before it touches the table: sessions named for the run it resumes or an unfinished earlier run of
 * the stream ({@link TargetOwnership#applicationName}), not its own, that hold or await a lock on the table or a
 * table the load derives from it. Only a run holding the table's claim alone may do so: every live process that
 * loads the table holds the claim, so these are a dead process's. Before that, while it plans, a run ends the
 * sessions of Sluice processes of its own host that are gone: one waiting for a lock (behind a long query, say) would
 * otherwise hold up the planning itself, since PostgreSQL queues every later reader of the table behind its wait.
 */
public final class LeftoverSessions {
    private static final Duration POLL = Duration.ofMillis(20);

    private LeftoverSessions() {
    }

    /**
     * Ends the leftover sessions of {@code runIds} on {@code relations} (names in {@code schema}) and waits, at most
     * {@code patience}, until they are gone; sessions the role may not end are waited for alone.
     */
    public static void end(PostgresConnections connections, String schema, Collection<String> relations,
                    Collection<String> runIds, Duration patience) throws ConnectorException {
        requireNonNull(schema, "schema is null");
        requireNonNull(relations, "relations is null");
        requireNonNull(runIds, "runIds is null");
        requireNonNull(patience, "patience is null");
        if (runIds.isEmpty()) {
            return;
        }
        try (ControlConnection control = connections.control("ending what a killed run left on " + schema)) {
            Connection c = control.connection();
            terminate(c, find(c, schema, relations, runIds), patience);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "ending the sessions a killed "
                    + "run left on " + schema);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG210, "interrupted while "
                    + "ending the sessions a killed run left on " + schema, null);
        }
    }

    /**
     * Ends the sessions on {@code relations} whose names say they belong to a Sluice process of this host that no
     * longer exists, whatever its run; a name PostgreSQL cut before its host is left alone.
     */
    public static void endOfDeadProcesses(PostgresConnections connections, String schema, Collection<String> relations,
                                   Duration patience) throws ConnectorException {
        requireNonNull(schema, "schema is null");
        requireNonNull(relations, "relations is null");
        requireNonNull(patience, "patience is null");
        String host = " host=" + TargetOwnership.host();
        try (ControlConnection control = connections.control("looking for what a killed run left on " + schema)) {
            Connection c = control.connection();
            List<Integer> dead = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement(LOCKING + "AND a.application_name LIKE 'sluice r=%'")) {
                p.setString(1, schema);
                p.setArray(2, c.createArrayOf("text", relations.toArray()));
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        String name = rs.getString(2);
                        int at = name.indexOf(" pid=");
                        int hostAt = name.indexOf(host, Math.max(at, 0));
                        if (at < 0 || hostAt < 0 || hostAt + host.length() != name.length()) {
                            continue;
                        }
                        try {
                            long pid = Long.parseLong(name.substring(at + 5, hostAt));
                            if (ProcessHandle.of(pid).isEmpty()) {
                                dead.add(rs.getInt(1));
                            }
                        } catch (NumberFormatException notOurs) {
                            // not a name Sluice wrote
                        }
                    }
                }
            }
            terminate(c, dead, patience);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "ending the sessions a killed "
                    + "run left on " + schema);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG210, "interrupted while "
                    + "ending the sessions a killed run left on " + schema, null);
        }
    }

    /**
     * Sessions (pid, application name) other than this process's holding or awaiting a lock on the named relations,
     * of no process that holds a claim.
     */
    private static final String LOCKING = "SELECT DISTINCT a.pid, a.application_name FROM pg_locks l "
            + "JOIN pg_stat_activity a ON a.pid = l.pid "
            + "JOIN pg_class r ON r.oid = l.relation JOIN pg_namespace n ON n.oid = r.relnamespace "
            + "WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            + "AND n.nspname = ? AND r.relname = ANY (?) AND a.pid <> pg_backend_pid() "
            + "AND a.application_name <> current_setting('application_name') "
            // a process that holds a claim lives (its claim session would have died with it)
            + "AND NOT EXISTS (SELECT 1 FROM pg_locks cl JOIN pg_stat_activity ca ON ca.pid = cl.pid "
            + "WHERE cl.locktype = 'advisory' AND cl.granted AND cl.classid = " + TargetOwnership.LOCK_SPACE
            + "::bigint::oid AND ca.application_name = a.application_name) ";

    private static void terminate(Connection c, List<Integer> pids, Duration patience)
            throws SQLException, InterruptedException {
        if (pids.isEmpty()) {
            return;
        }
        for (int pid : pids) {
            try (PreparedStatement p = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
                p.setInt(1, pid);
                p.execute();
            } catch (SQLException notAllowed) {
                // another role's session: it ends with its statement, waited for below
            }
        }
        long deadline = System.nanoTime() + patience.toNanos();
        while (alive(c, pids) && System.nanoTime() < deadline) {
            Thread.sleep(POLL);
        }
    }

    private static List<Integer> find(Connection c, String schema, Collection<String> relations,
                                      Collection<String> runIds) throws SQLException {
        List<String> tokens = runIds.stream().map(id -> TargetOwnership.runToken(id) + "%").toList();
        try (PreparedStatement p = c.prepareStatement(LOCKING + "AND a.application_name LIKE ANY (?)")) {
            Array names = c.createArrayOf("text", relations.toArray());
            Array patterns = c.createArrayOf("text", tokens.toArray());
            p.setString(1, schema);
            p.setArray(2, names);
            p.setArray(3, patterns);
            List<Integer> pids = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getInt(1));
                }
            }
            return pids;
        }
    }

    private static boolean alive(Connection c, List<Integer> pids) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY (?)")) {
            p.setArray(1, c.createArrayOf("int4", pids.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }
}
