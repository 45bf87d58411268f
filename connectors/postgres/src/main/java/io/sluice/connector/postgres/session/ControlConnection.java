package io.sluice.connector.postgres.session;

import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

import java.sql.Connection;
import java.sql.SQLException;

import static java.util.Objects.requireNonNull;

/**
 * A lease on the control connection of one database ({@link PostgresConnections#control}): use {@link #connection()}
 * within a try-with-resources; closing gives it back rather than closing it.
 */
public final class ControlConnection implements AutoCloseable {
    private final PostgresConnections.Kept slot;
    private final Connection connection;
    private boolean endsReadOnly;

    ControlConnection(PostgresConnections.Kept slot, Connection connection) {
        this.slot = requireNonNull(slot, "slot is null");
        this.connection = requireNonNull(connection, "connection is null");
    }

    public Connection connection() {
        return connection;
    }

    /**
     * The lease only reads: a transaction it leaves open is rolled back when it is given back, and the connection is
     * kept (a ledger read used to end by closing it: about eight connections opened per stream of a run).
     */
    public ControlConnection readOnly() {
        endsReadOnly = true;
        return this;
    }

    @Override
    public void close() {
        if (endsReadOnly) {
            try {
                if (connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.OPEN) {
                    connection.rollback();
                }
            } catch (SQLException | RuntimeException e) {
                PostgresConnections.closeQuietly(connection); // the slot does not keep a closed connection
            }
        }
        slot.giveBack(connection);
    }
}
