package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.ConnectionSlot;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LedgeredCommit;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.WriterRejects;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG210;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG211;
import static java.util.Objects.requireNonNull;

/**
 * Writes one partition with {@code COPY ... FROM STDIN} in its own transaction, on the worker's connection: it goes
 * back to the worker's slot after a commit, and is closed after anything else. Inside a {@link ReplacingLoad} the
 * transaction is the load's: a commit records the partition and leaves the transaction open. An abort from another
 * thread while a write is under way cancels the statement out of band and drops the socket (the server rolls back),
 * since the writing thread holds the connection's lock; an abort on an idle writer cancels the COPY and rolls back
 * cleanly.
 */
public final class CopyInWriter implements PartitionWriter {
    private static final Executor SAME_THREAD = Runnable::run;

    private final ConnectionSlot slot;
    private final Connection connection;
    private final CopyIn copy; // null when rows are set aside: rejecting has the COPY
    private final RejectingCopy rejecting;
    private final PostgresErrors errors;
    private final String what;
    private final PostgresLedgerStore ledger;
    private final boolean commitsTransaction;
    private final AfterCopy after;
    private final AtomicInteger callsUnderWay = new AtomicInteger();
    private final AtomicBoolean aborted = new AtomicBoolean();
    private volatile boolean committed;

    private CopyInWriter(ConnectionSlot slot, Connection connection, CopyIn copy, RejectingCopy rejecting,
                         PostgresErrors errors, String what, PostgresLedgerStore ledger, boolean commitsTransaction,
                         AfterCopy after) {
        this.slot = requireNonNull(slot, "slot is null");
        this.connection = requireNonNull(connection, "connection is null");
        if ((copy == null) == (rejecting == null)) {
            throw new IllegalArgumentException("a writer has a plain COPY or a rejecting one");
        }
        this.copy = copy;
        this.rejecting = rejecting;
        this.errors = requireNonNull(errors, "errors is null");
        this.what = requireNonNull(what, "what is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.commitsTransaction = commitsTransaction;
        this.after = requireNonNull(after, "after is null");
    }

    /** A writer whose commit commits its partition's transaction. */
    public static PartitionWriter open(ConnectionSlot slot, String copySql, String what, PostgresLedgerStore ledger,
                                BeforeCopy before) throws ConnectorException {
        return open(slot, copySql, what, ledger, true, before, AfterCopy.NOTHING, java.util.Optional.empty());
    }

    /** A writer whose commit runs {@code after} (e.g. a merge's apply) in the partition's transaction first. */
    public static PartitionWriter open(ConnectionSlot slot, String copySql, String what, PostgresLedgerStore ledger,
                                BeforeCopy before, AfterCopy after) throws ConnectorException {
        return open(slot, copySql, what, ledger, true, before, after, java.util.Optional.empty());
    }

    /** As above; with {@code rejects}, rows the server refuses (and rows the reader sets aside) go there. */
    public static PartitionWriter open(ConnectionSlot slot, String copySql, String what, PostgresLedgerStore ledger,
                                       BeforeCopy before, AfterCopy after, java.util.Optional<RejectsTable> rejects)
            throws ConnectorException {
        return open(slot, copySql, what, ledger, true, before, after, rejects);
    }

    /** A writer in the transaction {@code slot} holds: its commit records the partition, the load commits. */
    public static PartitionWriter openInTransaction(ConnectionSlot slot, String copySql, String what,
                                             PostgresLedgerStore ledger, java.util.Optional<RejectsTable> rejects)
            throws ConnectorException {
        return open(slot, copySql, what, ledger, false, BeforeCopy.NOTHING, AfterCopy.NOTHING, rejects);
    }

    private static PartitionWriter open(ConnectionSlot slot, String copySql, String what, PostgresLedgerStore ledger,
                                        boolean commitsTransaction, BeforeCopy before, AfterCopy after,
                                        java.util.Optional<RejectsTable> rejects)
            throws ConnectorException {
        PostgresConnections connections = slot.connections();
        Connection connection = slot.take(what);
        try {
            connection.setAutoCommit(false);
            before.run(connection);
            if (rejects.isPresent()) {
                RejectingCopy rejecting = new RejectingCopy(connection, copySql, rejects.get(), connections.errors(),
                        what, rejects.get().screen());
                rejecting.start();
                return new CopyInWriter(slot, connection, null, rejecting, connections.errors(), what, ledger,
                        commitsTransaction, after);
            }
            CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(copySql);
            return new CopyInWriter(slot, connection, copy, null, connections.errors(), what, ledger,
                    commitsTransaction, after);
        } catch (SQLException e) {
            rollbackQuietly(connection);
            PostgresConnections.closeQuietly(connection);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot start " + what);
        } catch (ConnectorException | RuntimeException e) {
            rollbackQuietly(connection);
            PostgresConnections.closeQuietly(connection);
            throw e;
        }
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws ConnectorException {
        writeRows(buffer, offset, length, -1);
    }

    /** With rows set aside, the tuples' count spares the writer looking for them; else the same as a write. */
    @Override
    public void writeRows(byte[] buffer, int offset, int length, int rows) throws ConnectorException {
        enter();
        try {
            if (rejecting != null) {
                rejecting.write(buffer, offset, length, rows);
            } else {
                copy.writeToCopy(buffer, offset, length);
            }
        } catch (SQLException e) {
            throw failure(e);
        } finally {
            callsUnderWay.decrementAndGet();
        }
    }

    @Override
    public long finish() throws ConnectorException {
        enter();
        try {
            if (rejecting == null) {
                return copy.endCopy();
            }
            long taken = rejecting.finish();
            long moved = after.setAside(connection, rejecting.origin());
            rejecting.movedAside(moved, "PG217: two or more source rows with one merge key (on-duplicate: reject)");
            return taken - moved;
        } catch (SQLException e) {
            throw failure(e);
        } finally {
            callsUnderWay.decrementAndGet();
        }
    }

    @Override
    public java.util.Optional<WriterRejects> rejects() {
        if (rejecting == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new WriterRejects() {
            @Override
            public void rejectsOf(RejectedRow.Origin origin) {
                rejecting.origin(requireNonNull(origin, "origin is null"));
            }

            @Override
            public void reject(RejectedRow row) throws ConnectorException {
                rejecting.reject(requireNonNull(row, "row is null"));
            }
        });
    }

    @Override
    public long rejectedRows() {
        return rejecting == null ? 0 : rejecting.rejected();
    }

    @Override
    public java.util.List<String> rejectSample() {
        return rejecting == null ? java.util.List.of() : rejecting.sample();
    }

    @Override
    public long refusedRows() {
        return rejecting == null ? 0 : rejecting.refused();
    }

    private boolean copyActive() {
        return rejecting != null ? rejecting.copyActive() : copy.isActive();
    }

    @Override
    public void commit() throws ConnectorException {
        enter();
        try {
            after.run(connection);
            if (commitsTransaction) {
                connection.commit();
            }
            committed = true;
        } catch (SQLException e) {
            throw failure(e);
        } catch (ConnectorException e) {
            rollbackQuietly(connection);
            throw e;
        } finally {
            callsUnderWay.decrementAndGet();
        }
    }

    /**
     * Commits the rows together with the ledger rows {@code withRows} writes on this connection. When it refuses
     * (the partition is done already: a retry after a lost commit answer), everything is rolled back and its
     * failure rethrown, since committing would copy the rows twice.
     */
    @Override
    public java.util.Optional<LedgeredCommit> ledgeredCommit() {
        return java.util.Optional.of(this::commit);
    }

    public void commit(LedgerWork<?> withRows) throws ConnectorException {
        requireNonNull(withRows, "withRows is null");
        if (copyActive()) {
            // Left for abort() to cancel: committing now would commit without the rows.
            throw new ConnectorException(ErrorKind.FAILED, PG211, what + ": commit before finish(); the COPY is "
                    + "still open", "report this as a bug");
        }
        enter();
        try {
            after.run(connection);
            withRows.apply(ledger.rowsOn(connection));
            if (commitsTransaction) {
                connection.commit();
            }
            committed = true;
        } catch (SQLException e) {
            throw failure(e);
        } catch (ConnectorException e) {
            rollbackQuietly(connection);
            throw e;
        } finally {
            callsUnderWay.decrementAndGet();
        }
    }

    @Override
    public void abort() {
        if (aborted.getAndSet(true)) {
            return;
        }
        if (callsUnderWay.get() > 0) {
            try {
                connection.unwrap(PGConnection.class).cancelQuery();
            } catch (SQLException | RuntimeException ignored) {
                // dropping the connection below ends the COPY anyway
            }
            try {
                connection.abort(SAME_THREAD);
            } catch (SQLException | RuntimeException ignored) {
                // already closed
            }
            return;
        }
        try {
            CopyIn open = rejecting != null ? rejecting.activeCopy() : copy;
            if (open != null && open.isActive()) {
                open.cancelCopy();
            }
        } catch (SQLException | RuntimeException ignored) {
            // rolled back or dropped next
        }
        rollbackQuietly(connection);
    }

    @Override
    public void close() {
        if (committed && !aborted.getAndSet(true)) {
            slot.giveBack(connection); // no transaction open: clean for the next partition
            return;
        }
        abort();
        PostgresConnections.closeQuietly(connection);
    }

    private void enter() throws ConnectorException {
        callsUnderWay.incrementAndGet();
        if (aborted.get()) {
            callsUnderWay.decrementAndGet();
            throw new ConnectorException(ErrorKind.FAILED, PG210, what + " was aborted", null);
        }
    }

    private ConnectorException failure(SQLException e) {
        if (aborted.get()) {
            return new ConnectorException(ErrorKind.FAILED, PG210, what + " was aborted", null);
        }
        return errors.translate(e, PostgresErrors.Phase.COPY, what + " failed");
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            if (!connection.isClosed() && !connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException | RuntimeException ignored) {
            // nothing to roll back on a broken connection; the server did it
        }
    }
}
