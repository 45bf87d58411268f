package io.sluice.connector.postgres;

import io.sluice.spi.ConnectorException;

import java.sql.Connection;
import java.sql.SQLException;

import static java.util.Objects.requireNonNull;

/**
 * The connection one worker keeps between the partitions it copies one after another: a reader or writer takes it,
 * and gives it back only after its transaction ended cleanly; anything else closes it, so a connection in an unknown
 * state is never reused. A one-off slot closes what it is given, for readers and writers opened on their own.
 */
final class ConnectionSlot implements AutoCloseable {
    private final PostgresConnections connections;
    private final boolean keeps;
    private Connection idle;

    private ConnectionSlot(PostgresConnections connections, boolean keeps) {
        this.connections = requireNonNull(connections, "connections is null");
        this.keeps = keeps;
    }

    /** Keeps a connection between partitions until closed. */
    static ConnectionSlot forWorker(PostgresConnections connections) {
        return new ConnectionSlot(connections, true);
    }

    /** Opens a connection per take and closes it when given back. */
    static ConnectionSlot oneOff(PostgresConnections connections) {
        return new ConnectionSlot(connections, false);
    }

    PostgresConnections connections() {
        return connections;
    }

    /** The kept connection when it is still open, else a new one; {@code purpose} names it in errors. */
    Connection take(String purpose) throws ConnectorException {
        Connection kept = idle;
        idle = null;
        if (kept != null && isOpen(kept)) {
            return kept;
        }
        PostgresConnections.closeQuietly(kept);
        return connections.open(purpose);
    }

    /** Back from a transaction that ended (committed or rolled back); kept for the next partition. */
    void giveBack(Connection connection) {
        requireNonNull(connection, "connection is null");
        if (!keeps || idle != null) {
            PostgresConnections.closeQuietly(connection);
            return;
        }
        idle = connection;
    }

    @Override
    public void close() {
        PostgresConnections.closeQuietly(idle);
        idle = null;
    }

    private static boolean isOpen(Connection connection) {
        try {
            return !connection.isClosed();
        } catch (SQLException e) {
            return false;
        }
    }
}
