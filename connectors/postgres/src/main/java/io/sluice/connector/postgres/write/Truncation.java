package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerWork;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

/**
 * A truncate load's emptying of its table: the privilege checked first (so a refusal names the GRANT), the lock taken
 * visibly and for at most the lock-timeout, and the TRUNCATE in the transaction that records it in the ledger.
 */
public final class Truncation {
    private Truncation() {
    }

    /**
     * Empties {@code name} in a transaction of its own, unless {@code first} (the ledger's say, run first in the same
     * transaction) answers false; returns whether it did.
     */
    static boolean run(PostgresConnections connections, QualifiedName name, PostgresLedgerStore ledger,
                       TableLocks locks, Optional<LedgerWork<Boolean>> first) throws ConnectorException {
        try (ControlConnection control = connections.control("truncating " + name.quoted())) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                // The ledger's row lock first, the table's ACCESS EXCLUSIVE second: a racing resume of the same run
                // waits for the ledger and then sees the truncation recorded.
                if (first.isPresent() && !first.get().apply(ledger.rowsOn(c))) {
                    c.rollback();
                    return false;
                }
                empty(c, name, locks, false);
                c.commit(); // committed before any writer opens
                return true;
            } catch (SQLException | ConnectorException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw failure(connections, name, e);
        }
    }

    /** Nothing was written yet, so a refusal to truncate is a preflight failure unless it is a passing one. */
    static ConnectorException failure(PostgresConnections connections, QualifiedName name, SQLException e) {
        ConnectorException translated = connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE,
                "cannot truncate " + name.quoted());
        ErrorKind kind = translated.kind() == ErrorKind.TRANSIENT ? ErrorKind.TRANSIENT : ErrorKind.PREFLIGHT;
        return new ConnectorException(kind, translated.code(), translated.getMessage(),
                translated.fix().orElse("use load mode append, or empty the table yourself"), translated.getCause());
    }

    /**
     * Empties the table in the open transaction of {@code connection} (the ledger records the truncation in the same
     * one). Checks the privilege first so a refusal names the GRANT, and takes the lock as {@code locks} says, so a
     * reader of the table holds the load up visibly and for at most the lock-timeout. With {@code mayKeepEmpty}, a
     * plain table found with no page once locked (nothing in it, and no one can add a row until the commit) is kept
     * as it is. Returns whether it ran TRUNCATE.
     */
    static boolean empty(Connection connection, QualifiedName name, TableLocks locks, boolean mayKeepEmpty)
            throws SQLException, ConnectorException {
        PostgresCatalog catalog = new PostgresCatalog(connection);
        PostgresCatalog.Privileged resolved = catalog.resolveTable(name, "TRUNCATE")
                .orElseThrow(() -> catalog.missingTable(name));
        ResolvedTable table = resolved.table();
        if (!resolved.granted()) {
            throw catalog.lacking(table, "TRUNCATE");
        }
        if (TableLocks.lockable(table)) { // TRUNCATE of a foreign table locks only the local entry, LOCK refuses it
            boolean keep = mayKeepEmpty && table.relkind() == 'r';
            boolean empty = locks.lock(connection, List.of(table.quoted()), TableLocks.Mode.ACCESS_EXCLUSIVE,
                    "empty it", ErrorKind.PREFLIGHT, keep ? java.util.Optional.of("SELECT pg_relation_size("
                            + table.oid() + "::oid) = 0") : java.util.Optional.empty());
            if (keep && empty) {
                return false;
            }
        }
        try (Statement s = connection.createStatement()) {
            s.execute("TRUNCATE TABLE " + table.quoted());
        }
        return true;
    }
}
