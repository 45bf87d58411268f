package io.sluice.connector.postgres;

import io.sluice.spi.TargetClaim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One session that holds the claims of a run's streams on one database ({@link TargetOwnership}), instead of a session
 * per stream: a run of a thousand tables started a thousand backends for claims alone. Only a claim granted at once is
 * held here; one that has to wait (another run holds the table), or a second claim of a table this session holds
 * already (advisory locks are reentrant within a session, so it would not exclude), waits on a session of its own.
 * The session ends with the process, which releases every claim, as one per stream did.
 */
final class SharedClaims {
    private final PostgresConnections connections;
    private final Set<String> held = new HashSet<>();
    private Connection session;
    private String applicationName;

    SharedClaims(PostgresConnections connections) {
        this.connections = requireNonNull(connections, "connections is null");
    }

    /** The claim of {@code key} in {@code mode} ("" or "_shared") when it is granted at once, else empty. */
    synchronized Optional<TargetClaim> tryClaim(int key, String mode, String table, String application)
            throws SQLException, io.sluice.spi.ConnectorException {
        String id = mode + ":" + key;
        if (held.contains(id) || (applicationName != null && !applicationName.equals(application))) {
            return Optional.empty();
        }
        if (session == null || session.isClosed()) {
            PostgresConnections.closeQuietly(session);
            session = connections.open("the claims on the run's tables");
            try (PreparedStatement p = session.prepareStatement("SELECT set_config('application_name', ?, false)")) {
                p.setString(1, application);
                p.execute();
            }
            applicationName = application;
        }
        try (PreparedStatement p = session.prepareStatement("SELECT pg_try_advisory_lock" + mode + "(?, ?)")) {
            p.setInt(1, TargetOwnership.LOCK_SPACE);
            p.setInt(2, key);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return Optional.empty();
                }
            }
        }
        held.add(id);
        return Optional.of(() -> release(key, mode, id, table));
    }

    private synchronized void release(int key, String mode, String id, String table) {
        held.remove(id);
        try (PreparedStatement p = session.prepareStatement("SELECT pg_advisory_unlock" + mode + "(?, ?)")) {
            p.setInt(1, TargetOwnership.LOCK_SPACE);
            p.setInt(2, key);
            p.execute();
        } catch (SQLException | RuntimeException e) {
            // The session is gone or broken: its locks went with it, the other claims' too; nothing is held now.
            PostgresConnections.closeQuietly(session);
            session = null;
            held.clear();
        }
    }

    /** Ends the session: every claim it holds is released. */
    synchronized void close() {
        PostgresConnections.closeQuietly(session);
        session = null;
        held.clear();
    }
}
