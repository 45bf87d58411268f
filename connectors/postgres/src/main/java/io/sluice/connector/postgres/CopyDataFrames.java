package io.sluice.connector.postgres;

import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.VisibleBufferedInputStream;

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
 *
 * <p>PgJDBC reads the socket into a fixed 8 KiB buffer: lineitem took 157K read calls of about 7.8 KiB each, every
 * one a system call and a TCP window update that wakes the source's backend. The buffer is widened once per
 * connection to the packing buffer's size (unread bytes carried over); where PgJDBC's fields differ it stays as is.
 */
final class CopyDataFrames {
    private static final byte COPY_DATA = 'd';
    private static final Optional<Field> PG_STREAM = field(org.postgresql.core.QueryExecutorBase.class, "pgStream");
    private static final Optional<InputBuffer> INPUT_BUFFER = InputBuffer.find();

    private final PGStream stream;

    private CopyDataFrames(PGStream stream) {
        this.stream = requireNonNull(stream, "stream is null");
    }

    /**
     * The frames of this connection's protocol stream, when PgJDBC's internals are as expected; its input buffer is
     * widened to at least {@code receiveBufferBytes} on the way.
     */
    static Optional<CopyDataFrames> of(Connection connection, int receiveBufferBytes) {
        if (PG_STREAM.isEmpty()) {
            return Optional.empty();
        }
        try {
            QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
            Object stream = PG_STREAM.get().get(executor);
            if (!(stream instanceof PGStream pg)) {
                return Optional.empty();
            }
            widenInput(pg, receiveBufferBytes);
            return Optional.of(new CopyDataFrames(pg));
        } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static void widenInput(PGStream stream, int bytes) throws ReflectiveOperationException {
        if (INPUT_BUFFER.isPresent()) {
            INPUT_BUFFER.get().widen(stream, bytes);
        }
    }

    /** PgJDBC's fields behind a stream's read buffer; all of them or none. */
    private record InputBuffer(Field input, Field buffer, Field index, Field end) {
        static Optional<InputBuffer> find() {
            return field(PGStream.class, "pgInput").flatMap(input ->
                    field(VisibleBufferedInputStream.class, "buffer").flatMap(buffer ->
                            field(VisibleBufferedInputStream.class, "index").flatMap(index ->
                                    field(VisibleBufferedInputStream.class, "endIndex").map(end ->
                                            new InputBuffer(input, buffer, index, end)))));
        }

        /** Replaces a smaller buffer with one of {@code bytes}, the unread bytes moved to its start. */
        void widen(PGStream stream, int bytes) throws ReflectiveOperationException {
            if (!(input.get(stream) instanceof VisibleBufferedInputStream in) || in.getBuffer().length >= bytes) {
                return;
            }
            int unreadFrom = index.getInt(in);
            int unread = end.getInt(in) - unreadFrom;
            byte[] wider = new byte[bytes];
            System.arraycopy(in.getBuffer(), unreadFrom, wider, 0, unread);
            buffer.set(in, wider);
            index.setInt(in, 0);
            end.setInt(in, unread);
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

    private static Optional<Field> field(Class<?> owner, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return Optional.of(field);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
