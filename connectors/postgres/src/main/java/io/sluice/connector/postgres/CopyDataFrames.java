package io.sluice.connector.postgres;

import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutor;

import java.io.IOException;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Reads the CopyData messages of a running {@code COPY ... TO STDOUT} straight off PgJDBC's protocol stream into the
 * caller's buffer. {@code CopyOut.readFromCopy()} returns one row per call in a new byte[], behind the connection's
 * lock and its message loop, and the row was then copied again into the packing buffer: on lineitem that was the
 * client's largest cost after the kernel's. Anything but CopyData (CopyDone at the end, a notice, an error) is left
 * on the stream for {@code readFromCopy()}, so PgJDBC still sees the end of the COPY and every error itself.
 * Reaching the stream takes reflection into PgJDBC's query executor; when that fails, there is no fast path and the
 * reader uses {@code readFromCopy()} for everything.
 */
final class CopyDataFrames {
    private static final byte COPY_DATA = 'd';
    private static final Optional<Field> PG_STREAM = pgStreamField();

    private final PGStream stream;

    private CopyDataFrames(PGStream stream) {
        this.stream = requireNonNull(stream, "stream is null");
    }

    /** The frames of this connection's protocol stream, when PgJDBC's internals are as expected. */
    static Optional<CopyDataFrames> of(Connection connection) {
        if (PG_STREAM.isEmpty()) {
            return Optional.empty();
        }
        try {
            QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
            Object stream = PG_STREAM.get().get(executor);
            return stream instanceof PGStream pg ? Optional.of(new CopyDataFrames(pg)) : Optional.empty();
        } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * When the next message is CopyData, consumes its header and returns the length of its payload, which the caller
     * must then {@link #read} in full; otherwise returns -1 and consumes nothing. Blocks until a message starts.
     */
    int next() throws IOException {
        if (stream.peekChar() != COPY_DATA) {
            return -1;
        }
        stream.receiveChar();
        return stream.receiveInteger4() - 4;
    }

    /** Reads the payload announced by {@link #next()}. */
    void read(byte[] into, int offset, int length) throws IOException {
        stream.receive(into, offset, length);
    }

    private static Optional<Field> pgStreamField() {
        try {
            Field field = org.postgresql.core.QueryExecutorBase.class.getDeclaredField("pgStream");
            field.setAccessible(true);
            return Optional.of(field);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
