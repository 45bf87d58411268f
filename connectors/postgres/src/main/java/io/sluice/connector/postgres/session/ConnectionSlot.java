package io.sluice.connector.postgres.session;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.SQLException;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG212;
import static java.util.Objects.requireNonNull;

/**
 * The connection one worker keeps between the partitions it copies one after another: a reader or writer takes it,
 * and gives it back only after its transaction ended cleanly; anything else closes it, so a connection in an unknown
 * state is never reused. A one-off slot closes what it is given, for readers and writers opened on their own.
 */
public final class ConnectionSlot implements AutoCloseable {
    private enum Kind {
        /** Closes what it is given back; opens a new connection per take. */
        ONE_OFF,
        /** Keeps the connection given back; opens a new one when it has none open. */
        WORKER,
        /** Keeps one connection and never opens another (its transaction spans writers). */
        HOLDING
    }

    private final PostgresConnections connections;
    private final Kind kind;
    /** Where the connection goes back to when the slot closes (null: closed); a worker's also comes from there. */
    private final PostgresConnections.Use use;
    private Connection idle;

    private ConnectionSlot(PostgresConnections connections, Kind kind, PostgresConnections.Use use) {
        this.connections = requireNonNull(connections, "connections is null");
        this.kind = kind;
        this.use = use;
    }

    /**
     * Keeps a connection between partitions until closed, then hands it back to {@code connections} for the next
     * worker of the same {@code use} (the next stream of a run), which takes it instead of opening one.
     */
    public static ConnectionSlot forWorker(PostgresConnections connections, PostgresConnections.Use use) {
        return new ConnectionSlot(connections, Kind.WORKER, requireNonNull(use, "use is null"));
    }

    /** Opens a connection per take and closes it when given back. */
    public static ConnectionSlot oneOff(PostgresConnections connections) {
        return new ConnectionSlot(connections, Kind.ONE_OFF, null);
    }

    /**
     * Holds one connection whose transaction stays open across writers: never replaced by a new one, since a new
     * connection would be outside that transaction. Closed, it hands the connection back to {@code use} once that
     * transaction ended.
     */
    public static ConnectionSlot holding(PostgresConnections connections, Connection connection,
                                         PostgresConnections.Use use) {
        ConnectionSlot slot = new ConnectionSlot(connections, Kind.HOLDING, use);
        slot.idle = requireNonNull(connection, "connection is null");
        return slot;
    }

    public PostgresConnections connections() {
        return connections;
    }

    /** The kept connection when it is still open, else a new one; {@code purpose} names it in errors. */
    public Connection take(String purpose) throws ConnectorException {
        Connection kept = idle;
        idle = null;
        if (kept != null && isOpen(kept)) {
            return kept;
        }
        PostgresConnections.closeQuietly(kept);
        if (kind == Kind.HOLDING) {
            throw new ConnectorException(ErrorKind.FAILED, PG212, "cannot start " + purpose + ": the "
                    + "transaction it belongs to was rolled back after an earlier failure", null);
        }
        return kind == Kind.WORKER ? connections.reuse(use, purpose) : connections.open(purpose);
    }

    /** The held connection while no writer has it (a {@link #holding} slot between writers), else empty. */
    public java.util.Optional<Connection> idle() {
        return java.util.Optional.ofNullable(idle);
    }

    /** Back from a transaction that ended (committed or rolled back), or from a writer of a held transaction. */
    public void giveBack(Connection connection) {
        requireNonNull(connection, "connection is null");
        if (kind == Kind.ONE_OFF || idle != null) {
            PostgresConnections.closeQuietly(connection);
            return;
        }
        idle = connection;
    }

    @Override
    public void close() {
        Connection last = idle;
        idle = null;
        if (use != null) {
            connections.keep(use, last); // closed there unless its transaction ended
        } else {
            PostgresConnections.closeQuietly(last);
        }
    }

    private static boolean isOpen(Connection connection) {
        try {
            return !connection.isClosed();
        } catch (SQLException e) {
            return false;
        }
    }
}
