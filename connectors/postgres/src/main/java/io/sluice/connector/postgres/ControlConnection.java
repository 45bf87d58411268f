package io.sluice.connector.postgres;

import java.sql.Connection;

import static java.util.Objects.requireNonNull;

/**
 * A lease on the control connection of one database ({@link PostgresConnections#control}): use {@link #connection()}
 * within a try-with-resources; closing gives it back rather than closing it.
 */
final class ControlConnection implements AutoCloseable {
    private final PostgresConnections connections;
    private final Connection connection;
    private boolean endsReadOnClose;

    ControlConnection(PostgresConnections connections, Connection connection) {
        this.connections = requireNonNull(connections, "connections is null");
        this.connection = requireNonNull(connection, "connection is null");
    }

    Connection connection() {
        return connection;
    }

    /**
     * The lease reads in a transaction of its own (e.g. with a lock timeout of its own), which closing ends, so the
     * connection goes back idle and is kept (one with a transaction still open is closed instead).
     */
    ControlConnection endingReadOnClose() {
        endsReadOnClose = true;
        return this;
    }

    @Override
    public void close() {
        if (endsReadOnClose) {
            try {
                connection.rollback(); // it only read: nothing to keep
            } catch (java.sql.SQLException | RuntimeException e) {
                // giving it back closes a connection that is not idle
            }
        }
        connections.giveBackControl(connection);
    }
}
