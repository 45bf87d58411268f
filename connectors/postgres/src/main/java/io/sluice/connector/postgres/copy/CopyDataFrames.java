package io.sluice.connector.postgres.copy;

import io.sluice.connector.postgres.session.PgJdbcVersion;

import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.FastPath;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.QueryExecutorBase;
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
 *
 * <p>PgJDBC reads the socket into a fixed 8 KiB buffer: lineitem took 157K read calls of about 7.8 KiB each, every
 * one a system call and a TCP window update that wakes the source's backend. The buffer is widened once per
 * connection to the packing buffer's size (unread bytes carried over).
 *
 * <p>Both reach into PgJDBC's non-public fields, so they run only on the PgJDBC they were tested with
 * ({@link #FAST_PATH}); on any other, or with a field missing, the reader uses {@code readFromCopy()} for everything.
 */
public final class CopyDataFrames {
    public static final FastPath FAST_PATH = new FastPath("pgjdbc-copy-frames", PgJdbcVersion.TESTED,
            "rows read off PgJDBC's protocol stream into the 64 KiB packing buffer",
            "rows read with PgJDBC's CopyOut.readFromCopy(), a byte[] each");
    private static final byte COPY_DATA = 'd';

    private final PGStream stream;

    private CopyDataFrames(PGStream stream) {
        this.stream = requireNonNull(stream, "stream is null");
    }

    /** Whether this runtime reads frames, and why; for plans and {@code sluice version}. */
    public static FastPath.Selection<Internals> selection() {
        return FAST_PATH.select(PgJdbcVersion.runtime(), Pinned::internals);
    }

    /**
     * The frames of this connection's protocol stream, when the fast path is on; its input buffer is widened to at
     * least {@code receiveBufferBytes} on the way.
     */
    public static Optional<CopyDataFrames> of(Connection connection, int receiveBufferBytes) {
        return selection().members().flatMap(internals -> internals.frames(connection, receiveBufferBytes));
    }

    /** Looked up on first use, after the version check, and never again: a failure just leaves it missing. */
    private static final class Pinned {
        private static final DriverMembers<Internals> INTERNALS = DriverMembers.find(() -> Internals.find(
                "pgStream", "pgInput", "buffer", "index", "endIndex"));

        static DriverMembers<Internals> internals() {
            return INTERNALS;
        }
    }

    /** PgJDBC's fields behind a connection's protocol stream and its read buffer; all of them or none. */
    public record Internals(Field pgStream, Field input, Field buffer, Field index, Field end) {
        public Internals {
            requireNonNull(pgStream, "pgStream is null");
            requireNonNull(input, "input is null");
            requireNonNull(buffer, "buffer is null");
            requireNonNull(index, "index is null");
            requireNonNull(end, "end is null");
        }

        /** The fields by name, each checked to have the type this class reads it as. */
        public static Internals find(String pgStream, String input, String buffer, String index, String end)
                throws ReflectiveOperationException {
            return new Internals(field(QueryExecutorBase.class, pgStream, PGStream.class),
                    field(PGStream.class, input, VisibleBufferedInputStream.class),
                    field(VisibleBufferedInputStream.class, buffer, byte[].class),
                    field(VisibleBufferedInputStream.class, index, int.class),
                    field(VisibleBufferedInputStream.class, end, int.class));
        }

        Optional<CopyDataFrames> frames(Connection connection, int receiveBufferBytes) {
            try {
                QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
                if (!(pgStream.get(executor) instanceof PGStream pg)) {
                    return Optional.empty();
                }
                widen(pg, receiveBufferBytes);
                return Optional.of(new CopyDataFrames(pg));
            } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
                return Optional.empty(); // before any byte of the COPY was read: readFromCopy() takes over cleanly
            }
        }

        /** Replaces a smaller buffer with one of {@code bytes}, the unread bytes moved to its start. */
        private void widen(PGStream stream, int bytes) throws ReflectiveOperationException {
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

        private static Field field(Class<?> owner, String name, Class<?> type) throws ReflectiveOperationException {
            Field field = owner.getDeclaredField(name);
            if (field.getType() != type) {
                throw new NoSuchFieldException(owner.getSimpleName() + "." + name + " is a "
                        + field.getType().getName() + ", not a " + type.getName());
            }
            field.setAccessible(true);
            return field;
        }
    }

    /**
     * When the next message is CopyData, consumes its header and returns the length of its payload, which the caller
     * must then {@link #read} in full; otherwise returns -1 and consumes nothing. Blocks until a message starts.
     */
    public int next() throws IOException {
        if (stream.peekChar() != COPY_DATA) {
            return -1;
        }
        stream.receiveChar();
        return stream.receiveInteger4() - 4;
    }

    /** Reads the payload announced by {@link #next()}. */
    public void read(byte[] into, int offset, int length) throws IOException {
        stream.receive(into, offset, length);
    }
}
