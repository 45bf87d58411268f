package io.sluice.connector.postgres;

import io.sluice.connector.postgres.copy.CopyDataFrames;
import io.sluice.connector.postgres.copy.CopyOutReader;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.toolkit.Redactor;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PgJDBC's socket buffers are sized for the copy: a CopyData message of one packed buffer leaves in one write (its
 * 5-byte header no longer flushed ahead of it as a packet of its own), and the reader's socket reads fill 64 KiB
 * instead of 8 KiB. Widening the read buffer in the middle of a COPY must not lose or reorder a byte.
 */
class SocketBuffersTest {
    private static TestingPostgres server;
    private static String database;

    @BeforeAll
    static void setUp() throws Exception {
        server = TestingPostgres.shared();
        database = server.createDatabase("buffers");
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE numbers (id int, pad text)");
            s.execute("INSERT INTO numbers SELECT g, repeat('x', g % 300) FROM generate_series(1, 50000) AS g");
        }
    }

    @Test
    void aWholePackedMessageFitsTheSendBufferUnlessTheUrlSaysOtherwise() throws Exception {
        try (PostgresConnections connections = connections(server.jdbcUrl(database));
             Connection connection = connections.open("test")) {
            assertEquals(CopyOutReader.BUFFER_BYTES + 5, sendBufferBytes(connection));
        }
        try (PostgresConnections connections = connections(server.jdbcUrl(database) + "?maxSendBufferSize=16384");
             Connection connection = connections.open("test")) {
            assertEquals(16384, sendBufferBytes(connection));
        }
    }

    @Test
    void widenedInTheMiddleOfACopyTheReadBufferKeepsEveryByte() throws Exception {
        try (PostgresConnections connections = connections(server.jdbcUrl(database));
             Connection connection = connections.open("test")) {
            assertEquals(8192, inputBufferBytes(connection), "PgJDBC's own size; the test needs it to change");
            CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI()
                    .copyOut("COPY numbers TO STDOUT (FORMAT binary)");
            CopyDataFrames frames = CopyDataFrames.of(connection, 8192).orElseThrow();
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            int messages = 0;
            while (true) {
                if (messages == 10) { // PgJDBC's buffer now holds part of the rows after these
                    CopyDataFrames.of(connection, CopyOutReader.BUFFER_BYTES).orElseThrow();
                    assertEquals(CopyOutReader.BUFFER_BYTES, inputBufferBytes(connection));
                }
                int length = frames.next();
                if (length < 0) {
                    assertNull(copy.readFromCopy());
                    break;
                }
                byte[] payload = new byte[length];
                frames.read(payload, 0, length);
                stream.write(payload);
                messages++;
            }
            assertEquals(50000, copy.getHandledRowCount());
            long[] countAndSum = countAndSumFirstColumn(ByteBuffer.wrap(stream.toByteArray()));
            assertEquals(50000, countAndSum[0]);
            assertEquals(50000L * 50001 / 2, countAndSum[1]);
        }
    }

    /** Walks a binary COPY stream: header, then tuples of (int16 fields, per field int32 length and bytes). */
    private static long[] countAndSumFirstColumn(ByteBuffer in) {
        in.position(11); // PGCOPY\n\377\r\n\0
        in.getInt(); // flags
        int extension = in.getInt();
        in.position(in.position() + extension);
        long rows = 0;
        long sum = 0;
        while (true) {
            short fields = in.getShort();
            if (fields == -1) {
                assertTrue(!in.hasRemaining(), "bytes after the trailer");
                return new long[] {rows, sum};
            }
            for (int f = 0; f < fields; f++) {
                int length = in.getInt();
                if (f == 0) { // int4, big-endian
                    sum += in.getInt(in.position());
                }
                in.position(in.position() + Math.max(length, 0));
            }
            rows++;
        }
    }

    private static int inputBufferBytes(Connection connection) throws Exception {
        Object input = field(PGStream.class, "pgInput").get(pgStream(connection));
        return ((byte[]) field(input.getClass(), "buffer").get(input)).length;
    }

    private static int sendBufferBytes(Connection connection) throws Exception {
        Object output = field(PGStream.class, "pgOutput").get(pgStream(connection));
        return ((byte[]) field(output.getClass(), "buf").get(output)).length;
    }

    private static PGStream pgStream(Connection connection) throws Exception {
        Object executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
        return (PGStream) field(org.postgresql.core.QueryExecutorBase.class, "pgStream").get(executor);
    }

    private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
        Field field = owner.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    private static PostgresConnections connections(String url) {
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        return new PostgresConnections(() -> url, properties, new PostgresErrors(Redactor.none()));
    }
}
