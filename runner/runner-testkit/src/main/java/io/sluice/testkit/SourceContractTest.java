package io.sluice.testkit;

import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The contract every {@link Source} keeps, as JUnit 5 tests a connector inherits: extend this class, return a
 * source over a small fixture (thousands of rows, not millions: streams are held in memory to be checked) from
 * {@link #createSource()} and say how many rows it holds in {@link #expectedRows()}.
 *
 * <p>It drives the lifecycle the runner uses (columns, project, plan, openSession, one reader per partition,
 * readers running concurrently on the thread kind the source asks for) with degree 1 and 4 and checks: partition ids
 * are unique and stable, each stream is a well-formed COPY stream whose tuples have one field per column, each
 * reader's count matches its stream, the counts add up to {@link #expectedRows()}, and PostgreSQL itself accepts
 * every stream into a table of {@link #targetColumns} on {@link TestingPostgres#shared()}.
 *
 * <p>The subclass owns what {@link #createSource()} needs (connector, server) and closes it, e.g. in
 * {@code @AfterAll}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public abstract class SourceContractTest {
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    /** A source over the fixture; called once per test, so it may be a new one each time. */
    protected abstract Source createSource() throws Exception;

    /** How many rows the fixture holds. */
    protected abstract long expectedRows();

    /** The distribution to plan; override for methods with a key. */
    protected Distribution distribution() {
        return Distribution.none();
    }

    /** Rows per partition asked of the planner: small by default so the fixture splits into several partitions. */
    protected long rowsPerPartition() {
        return Math.max(1, expectedRows() / 8);
    }

    protected Consistency consistency() {
        return Consistency.NONE;
    }

    /**
     * What the connector's factory declares of its sources ({@code factory.sourceCapabilities()}): the suite starts
     * readers on the threads it asks for and holds a session to the snapshot it claims. The default claims none.
     */
    protected SourceCapabilities capabilities() {
        return new SourceCapabilities(Set.of(distribution().method()), Set.of());
    }

    /**
     * The PostgreSQL target column for each source column, in order; {@code typeName} must be a PostgreSQL type.
     * The default, the source columns themselves, fits sources that describe columns in PostgreSQL types.
     */
    protected List<Column> targetColumns(List<Column> sourceColumns) {
        return sourceColumns;
    }

    @Test
    void describesItselfAndItsColumns() throws Exception {
        Source source = createSource();
        assertFalse(source.describe().isBlank(), "describe() is blank");
        List<Column> columns = source.columns();
        assertFalse(columns.isEmpty(), "columns() is empty");
        Set<String> names = new HashSet<>();
        for (Column column : columns) {
            assertTrue(names.add(column.name()), "duplicate column name " + column.name());
        }
        assertEquals(columns.size(), targetColumns(columns).size(), "targetColumns() must give one per column");
    }

    @Test
    void projectsOneExpressionPerColumn() throws Exception {
        Source source = createSource();
        List<ColumnPair> pairs = pairs(source);
        SourceProjection projection = source.project(pairs);
        assertNotNull(projection.format(), "projection format is null");
        assertEquals(pairs.size(), projection.expressions().size(), "one expression per column pair");
    }

    @Test
    void planIsStable() throws Exception {
        Source source = createSource();
        PlanRequest request = new PlanRequest(distribution(), 4, rowsPerPartition());
        List<String> first = source.plan(request).stream().map(SourcePartition::id).toList();
        List<String> second = createSource().plan(request).stream().map(SourcePartition::id).toList();
        assertEquals(first, second, "planning the same request twice must give the same partition ids");
    }

    @Test
    void aCheckpointRestoresItsPartition() throws Exception {
        Source source = createSource();
        for (SourcePartition partition : source.plan(new PlanRequest(distribution(), 4, rowsPerPartition()))) {
            if (partition.checkpoint().isEmpty()) {
                continue; // a partition that cannot be restored is planned again on resume
            }
            SourcePartition restored = createSource().restore(partition.checkpoint().get()).orElseThrow(
                    () -> new AssertionError("checkpoint of " + partition.id() + " does not restore"));
            assertEquals(partition.id(), restored.id(), "restored id");
            assertEquals(partition.predicate(), restored.predicate(), "restored predicate of " + partition.id());
        }
    }

    @Test
    void readerClosesWithoutReading() throws Exception {
        Source source = createSource();
        SourceProjection projection = source.project(pairs(source));
        List<SourcePartition> partitions = source.plan(new PlanRequest(distribution(), 1, rowsPerPartition()));
        try (SourceSession session = source.openSession(consistency())) {
            PartitionReader reader = session.openReader(partitions.getFirst(), projection);
            reader.cancel(); // must never throw, even before a transfer
            reader.close();
        }
    }

    @ParameterizedTest(name = "degree {0}")
    @ValueSource(ints = {1, 4})
    void readsEveryRowExactlyOnce(int degree) throws Exception {
        Source source = createSource();
        List<ColumnPair> pairs = pairs(source);
        SourceProjection projection = source.project(pairs);
        List<SourcePartition> partitions = source.plan(new PlanRequest(distribution(), degree, rowsPerPartition()));
        assertFalse(partitions.isEmpty(), "plan() returned no partition");
        Set<String> ids = new HashSet<>();
        for (SourcePartition partition : partitions) {
            assertTrue(ids.add(requireNonNull(partition.id(), "partition id is null")),
                    "duplicate partition id " + partition.id());
            assertNotNull(partition.predicate(), "predicate of " + partition.id() + " is null");
            assertFalse(source.readStatement(partition, projection).isBlank(),
                    "readStatement of " + partition.id() + " is blank");
        }

        TestingPostgres pg = TestingPostgres.shared();
        String database = pg.createDatabase("contract");
        List<Column> targets = pairs.stream().map(ColumnPair::target).toList();
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE contract_target (" + targets.stream()
                    .map(t -> quote(t.name()) + " " + t.typeName()).collect(Collectors.joining(", ")) + ")");
        }
        String copySql = "COPY contract_target (" + targets.stream().map(t -> quote(t.name()))
                .collect(Collectors.joining(", ")) + ") FROM STDIN (FORMAT "
                + (projection.format() == CopyFormat.BINARY ? "binary" : "text") + ")";

        long total = 0;
        ThreadFactory threads = capabilities().readerThreads() == Source.ThreadModel.PLATFORM
                ? Thread.ofPlatform().name("contract-reader-", 0).factory()
                : Thread.ofVirtual().name("contract-reader-", 0).factory();
        try (SourceSession session = source.openSession(consistency());
             ExecutorService pool = Executors.newFixedThreadPool(degree, threads)) {
            assertNotNull(session.snapshotMode(), "snapshotMode() is null");
            if (!capabilities().sharesSnapshot()) {
                assertEquals("none", session.snapshotMode(), "the factory does not declare sharesSnapshot, so the "
                        + "plan says none; the session must not claim a snapshot");
            }
            List<Future<Long>> results = new ArrayList<>();
            for (SourcePartition partition : partitions) {
                results.add(pool.submit(() -> readPartition(session, partition, projection, pairs.size(), pg,
                        database, copySql)));
            }
            for (Future<Long> result : results) {
                try {
                    total += result.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof AssertionError a) {
                        throw a;
                    }
                    throw new AssertionError("a partition failed: " + e.getCause(), e.getCause());
                }
            }
        }
        assertEquals(expectedRows(), total, "rows over all " + partitions.size() + " partitions");
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM contract_target")) {
            rs.next();
            assertEquals(expectedRows(), rs.getLong(1), "rows PostgreSQL took from the streams");
        }
    }

    private long readPartition(SourceSession session, SourcePartition partition, SourceProjection projection,
                               int fields, TestingPostgres pg, String database, String copySql) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long reported;
        long taken;
        try (Connection c = pg.connect(database)) {
            CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copySql);
            CopySink sink = (buffer, offset, length) -> {
                bytes.write(buffer, offset, length); // copied: the reader may reuse its buffer
                try {
                    copy.writeToCopy(buffer, offset, length);
                } catch (SQLException e) {
                    throw new ConnectorException(ErrorKind.DATA, "CONTRACT",
                            "PostgreSQL refused the stream of " + partition.id() + ": " + e.getMessage(), null, e);
                }
            };
            try (PartitionReader reader = session.openReader(partition, projection)) {
                reported = reader.transferTo(sink);
                taken = copy.endCopy();
            } finally {
                if (copy.isActive()) {
                    copy.cancelCopy();
                }
            }
        }
        long parsed = projection.format() == CopyFormat.BINARY
                ? countBinaryTuples(bytes.toByteArray(), fields, partition.id())
                : countTextRows(bytes.toByteArray());
        assertEquals(parsed, reported, "transferTo() of " + partition.id() + " must return the rows it streamed");
        assertEquals(parsed, taken, "rows PostgreSQL took from " + partition.id());
        return reported;
    }

    private List<ColumnPair> pairs(Source source) throws ConnectorException {
        List<Column> columns = source.columns();
        List<Column> targets = targetColumns(columns);
        List<ColumnPair> pairs = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            pairs.add(new ColumnPair(columns.get(i), targets.get(i)));
        }
        return pairs;
    }

    /** Walks a whole binary COPY stream (header, tuples, trailer, nothing after) and counts its tuples. */
    static long countBinaryTuples(byte[] stream, int fields, String partition) {
        ByteBuffer in = ByteBuffer.wrap(stream);
        String where = "binary COPY stream of " + partition + ": ";
        if (stream.length < SIGNATURE.length + 8) {
            fail(where + "too short for a header (" + stream.length + " bytes)");
        }
        for (byte b : SIGNATURE) {
            if (in.get() != b) {
                fail(where + "bad signature");
            }
        }
        int flags = in.getInt();
        assertEquals(0, flags & (1 << 16), where + "must not include OIDs");
        int extension = in.getInt();
        if (extension < 0 || extension > in.remaining()) {
            fail(where + "bad header extension length " + extension);
        }
        in.position(in.position() + extension);
        long tuples = 0;
        while (true) {
            if (in.remaining() < 2) {
                fail(where + "ends without the trailer after " + tuples + " tuples");
            }
            short count = in.getShort();
            if (count == -1) {
                break;
            }
            assertEquals(fields, count, where + "tuple " + tuples + " field count");
            for (int f = 0; f < count; f++) {
                if (in.remaining() < 4) {
                    fail(where + "tuple " + tuples + " is cut short");
                }
                int length = in.getInt();
                if (length < -1 || length > in.remaining()) {
                    fail(where + "tuple " + tuples + " field " + f + " has bad length " + length);
                }
                if (length > 0) {
                    in.position(in.position() + length);
                }
            }
            tuples++;
        }
        assertEquals(0, in.remaining(), where + "bytes after the trailer");
        return tuples;
    }

    private static long countTextRows(byte[] stream) {
        long rows = 0;
        for (byte b : stream) {
            if (b == '\n') {
                rows++;
            }
        }
        return rows;
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
