package io.sluice.connector.postgres;

import java.sql.Connection;

import static java.util.Objects.requireNonNull;

/**
 * A lease on the control connection of one database ({@link PostgresConnections#control}): use {@link #connection()}
 * within a try-with-resources; closing gives it back rather than closing it.
 */
final class ControlConnection implements AutoCloseable {
    private final PostgresConnections.Kept slot;
    private final Connection connection;

    ControlConnection(PostgresConnections.Kept slot, Connection connection) {
        this.slot = requireNonNull(slot, "slot is null");
        this.connection = requireNonNull(connection, "connection is null");
    }

    Connection connection() {
        return connection;
    }

    @Override
    public void close() {
        slot.giveBack(connection);
    }
}
