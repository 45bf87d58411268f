package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ConnectionSlot;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.PartitionReader;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG210;
import static java.util.Objects.requireNonNull;

/**
 * Reads one partition with {@code COPY (SELECT ...) TO STDOUT} in its own transaction (importing the session's
 * snapshot when there is one), on the worker's connection: it goes back to the worker's slot after a complete read,
 * and is closed after anything else. Rows (one CopyData message each) are packed into a 64 KiB buffer that goes to
 * the sink when full; {@link CopyDataFrames} reads them straight into it, and {@code readFromCopy()} handles every
 * other message (the end, notices, errors). Bytes are passed on undecoded.
 */
public final class CopyOutReader implements PartitionReader {
    public static final int BUFFER_BYTES = PostgresConnections.COPY_BUFFER_BYTES;

    private final ConnectionSlot slot;
    private final Connection connection;
    private final String copySql;
    private final PostgresErrors errors;
    private final String what;
    private volatile boolean cancelled;
    private volatile CopyOut copy;
    private volatile boolean complete;
    private volatile boolean midRow; // a long row's message read in part: the protocol stream is out of step

    private CopyOutReader(ConnectionSlot slot, Connection connection, String copySql, PostgresErrors errors,
                          String what) {
        this.slot = requireNonNull(slot, "slot is null");
        this.connection = requireNonNull(connection, "connection is null");
        this.copySql = requireNonNull(copySql, "copySql is null");
        this.errors = requireNonNull(errors, "errors is null");
        this.what = requireNonNull(what, "what is null");
    }

    /** Takes the slot's connection and, with a snapshot, starts a REPEATABLE READ READ ONLY transaction in it. */
    public static CopyOutReader open(ConnectionSlot slot, Optional<String> snapshot, String copySql, String what,
                              BeforeCopy before) throws ConnectorException {
        PostgresConnections connections = slot.connections();
        Connection connection = slot.take(what);
        try {
            connection.setAutoCommit(false);
            if (snapshot.isPresent()) {
                PostgresConnections.repeatableRead(connection); // a kept snapshot reader's session has it already
                connection.setReadOnly(true);
                try (Statement s = connection.createStatement()) {
                    // Must be the transaction's first statement; PgJDBC has only sent BEGIN so far.
                    s.execute("SET TRANSACTION SNAPSHOT " + SqlQuote.literal(snapshot.get()));
                }
            }
            before.run(connection);
            return new CopyOutReader(slot, connection, copySql, connections.errors(), what);
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(connection);
            throw e;
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(connection);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE,
                    "cannot start reading " + what + (snapshot.isPresent() ? " in the shared snapshot" : ""));
        }
    }

    @Override
    public long transferTo(CopySink sink) throws ConnectorException {
        requireNonNull(sink, "sink is null");
        CopyOut out;
        try {
            out = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(copySql);
            copy = out;
        } catch (SQLException e) {
            rollbackQuietly();
            throw failure(e);
        }
        boolean done = false;
        try {
            if (cancelled) {
                throw cancelledException();
            }
            byte[] buffer = new byte[BUFFER_BYTES];
            int filled = 0;
            long messages = 0;
            CopyDataFrames frames = CopyDataFrames.of(connection, BUFFER_BYTES).orElse(null);
            while (true) {
                // The fast path leaves row null: the payload goes from PgJDBC's input buffer straight into ours.
                int length = frames == null ? -1 : frames.next();
                byte[] row = null;
                if (length < 0) {
                    row = out.readFromCopy(); // the end of the COPY, a notice or an error: PgJDBC's own loop
                    if (row == null) {
                        break;
                    }
                    length = row.length;
                }
                messages++;
                if (filled + length > buffer.length) {
                    if (filled > 0) {
                        sink.write(buffer, 0, filled);
                        filled = 0;
                    }
                    if (length > buffer.length) {
                        if (row == null) {
                            midRow = true;
                            streamLongRow(frames, length, buffer, sink);
                            midRow = false;
                        } else {
                            sink.write(row, 0, length);
                        }
                        continue;
                    }
                }
                if (row == null) {
                    frames.read(buffer, filled, length);
                } else {
                    System.arraycopy(row, 0, buffer, filled, length);
                }
                filled += length;
            }
            if (filled > 0) {
                sink.write(buffer, 0, filled);
            }
            // The server's "COPY n" is exact; the message count is the fallback (binary adds one trailer message).
            long rows = out.getHandledRowCount();
            if (rows < 0) {
                rows = out.getFormat() == 1 ? Math.max(0, messages - 1) : messages;
            }
            connection.commit();
            done = true;
            complete = !cancelled;
            return rows;
        } catch (SQLException e) {
            throw failure(e);
        } catch (IOException e) {
            // PgJDBC would have closed the connection after a read failure; close() does that here.
            throw failure(new PSQLException("I/O error while reading COPY data: " + e.getMessage(),
                    PSQLState.CONNECTION_FAILURE, e));
        } finally {
            if (!done && midRow) {
                // PgJDBC would read the rest of the row as messages (and wait for a length it took from the data):
                // the connection is dropped, and the server rolls its transaction back.
                PostgresConnections.closeQuietly(connection);
            } else if (!done) {
                cancelQuietly(out);
                rollbackQuietly();
            }
        }
    }

    /**
     * Passes a row longer than the buffer on through it, a buffer at a time: a row is one CopyData message, as long as
     * its values (up to 1 GB each), and holding it whole made memory follow the largest value (three rows of a 360 MB
     * text at degree 2 peaked at 1.9 GB). The sink takes any cut of the stream; one that keeps whole tuples (rejects:)
     * gathers the row itself. A sink that fails mid-row leaves the stream mid-message: see {@code midRow}.
     */
    private static void streamLongRow(CopyDataFrames frames, int length, byte[] buffer, CopySink sink)
            throws IOException, ConnectorException {
        for (int left = length; left > 0; ) {
            int piece = Math.min(left, buffer.length);
            frames.read(buffer, 0, piece);
            sink.write(buffer, 0, piece);
            left -= piece;
        }
    }

    @Override
    public void cancel() {
        cancelled = true;
        if (copy != null && !complete) { // once complete, the connection may be reading the worker's next partition
            try {
                // Out of band (a new socket to the server), so it does not wait for the reading thread's lock.
                connection.unwrap(PGConnection.class).cancelQuery();
            } catch (SQLException | RuntimeException ignored) {
                // the reader fails on its own or has finished
            }
        }
    }

    @Override
    public void close() {
        if (complete) {
            slot.giveBack(connection); // its transaction committed: clean for the next partition
            return;
        }
        CopyOut out = copy;
        if (out != null && !midRow) {
            cancelQuietly(out);
        }
        rollbackQuietly();
        PostgresConnections.closeQuietly(connection);
    }

    private ConnectorException failure(SQLException e) {
        return cancelled ? cancelledException() : errors.translate(e, PostgresErrors.Phase.COPY, "reading " + what);
    }

    private ConnectorException cancelledException() {
        return new ConnectorException(ErrorKind.FAILED, PG210, "reading " + what + " was cancelled", null);
    }

    private static void cancelQuietly(CopyOut out) {
        try {
            if (out.isActive()) {
                out.cancelCopy();
            }
        } catch (SQLException | RuntimeException ignored) {
            // the connection is rolled back or closed next
        }
    }

    private void rollbackQuietly() {
        try {
            if (!connection.isClosed() && !connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException | RuntimeException ignored) {
            // a broken connection has nothing to roll back; the server already did
        }
    }
}
