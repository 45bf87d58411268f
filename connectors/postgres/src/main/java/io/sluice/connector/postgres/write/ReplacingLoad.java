package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.copy.CopyInWriter;
import io.sluice.connector.postgres.copy.RejectsTable;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.read.TableRows;
import io.sluice.connector.postgres.session.ConnectionSlot;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.write.LoadedRowsCheck;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.ReplacingTransaction;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG212;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG213;
import static java.util.Objects.requireNonNull;

/**
 * A truncate load in one transaction on one connection: TRUNCATE, then each partition's {@code COPY} (with
 * {@code FREEZE} when the table allows it: the rows were written by the transaction that emptied the table, so no
 * one can see them before the commit anyway), then COMMIT. Anything short of the commit rolls back, and the table
 * keeps its old rows. A small load into a table that has no page yet keeps the table, locked, instead of truncating
 * it ({@link Truncation#empty}).
 */
public final class ReplacingLoad implements ReplacingTransaction {
    private final ConnectionSlot slot;
    private final String copySql;
    private final String what;
    private final PostgresLedgerStore ledger;
    private final boolean truncated;
    private final BeforeCommit beforeCommit;
    private final Optional<RejectsTable> rejects;
    /** The table written (quoted), and the one whose primary key lists its rows until it has one itself. */
    private final String table;
    private final String keyTable;
    private boolean committed;

    private ReplacingLoad(ConnectionSlot slot, String copySql, String what, PostgresLedgerStore ledger,
                          boolean truncated, BeforeCommit beforeCommit, Optional<RejectsTable> rejects,
                          String table, String keyTable) {
        this.table = requireNonNull(table, "table is null");
        this.keyTable = requireNonNull(keyTable, "keyTable is null");
        this.beforeCommit = requireNonNull(beforeCommit, "beforeCommit is null");
        this.rejects = requireNonNull(rejects, "rejects is null");
        this.slot = requireNonNull(slot, "slot is null");
        this.copySql = requireNonNull(copySql, "copySql is null");
        this.what = requireNonNull(what, "what is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.truncated = truncated;
    }

    /**
     * Begins the transaction and empties the table in it; with {@code first}, only if that ledger work, run first in
     * the transaction, answers true (then the writers run {@code copySql}, else {@code plainCopySql}: FREEZE needs
     * the truncation in the same transaction).
     */
    /** What runs on the load's connection just before its commit (the stream's checks). */
    @FunctionalInterface
    interface BeforeCommit {
        BeforeCommit NOTHING = c -> { };

        void run(Connection c) throws SQLException, ConnectorException;
    }

    static ReplacingLoad begin(PostgresConnections connections, QualifiedName table, PostgresLedgerStore ledger,
                               Optional<LedgerWork<Boolean>> first, String copySql, String plainCopySql,
                               String what, TableLocks locks, BeforeCommit beforeCommit,
                               Optional<RejectsTable> rejects, boolean mayKeepEmpty, String keyTable)
            throws ConnectorException {
        requireNonNull(first, "first is null");
        // A writer's kept session: the load's ledger reads are prepared there already.
        Connection connection = connections.reuse(PostgresConnections.Use.WRITER, what);
        try {
            connection.setAutoCommit(false);
            boolean truncated = first.isEmpty() || first.get().apply(ledger.rowsOn(connection));
            // FREEZE needs the TRUNCATE in this transaction; an empty table kept as it is takes a plain COPY.
            boolean freezes = truncated && Truncation.empty(connection, table, locks, mayKeepEmpty);
            return new ReplacingLoad(ConnectionSlot.holding(connections, connection, PostgresConnections.Use.WRITER),
                    freezes ? copySql : plainCopySql, what, ledger, truncated, beforeCommit, rejects, table.quoted(),
                    keyTable);
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(connection);
            throw Truncation.failure(connections, table, e);
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(connection);
            throw e;
        }
    }

    @Override
    public boolean truncated() {
        return truncated;
    }

    @Override
    public PartitionWriter open() throws ConnectorException {
        if (committed) {
            throw new ConnectorException(ErrorKind.FAILED, PG213, what + ": the load was already committed",
                    "report this as a bug");
        }
        return CopyInWriter.openInTransaction(slot, copySql, what, ledger, rejects);
    }

    @Override
    public void commit() throws ConnectorException {
        commit(LoadedRowsCheck.NONE);
    }

    /** The stream's checks, then {@code check} on the table as this transaction sees it, then the commit. */
    @Override
    public void commit(LoadedRowsCheck check) throws ConnectorException {
        Connection connection = slot.idle().orElseThrow(() -> new ConnectorException(ErrorKind.FAILED, PG212,
                what + ": cannot commit: the load's transaction was rolled back after an earlier failure, or a "
                        + "writer is still open", null));
        try {
            beforeCommit.run(connection);
            if (check != LoadedRowsCheck.NONE) {
                check.check(Optional.of(TableRows.inTransaction(slot.connections(), connection, table, keyTable)));
            }
            connection.commit();
            committed = true;
        } catch (SQLException e) {
            throw slot.connections().errors().translate(e, PostgresErrors.Phase.COPY, what + ": commit failed");
        }
    }

    @Override
    public void close() {
        if (!committed) {
            slot.idle().ifPresent(ReplacingLoad::rollbackQuietly);
        }
        slot.close();
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException ignored) {
            // closing the connection next rolls back too
        }
    }
}
