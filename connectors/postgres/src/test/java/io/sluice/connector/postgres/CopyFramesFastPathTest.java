package io.sluice.connector.postgres;

import io.sluice.connector.postgres.copy.CopyDataFrames;
import io.sluice.connector.postgres.copy.CopyOutReader;
import io.sluice.connector.postgres.session.PgJdbcVersion;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.DriverVersion;
import io.sluice.toolkit.driver.FastPath;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.util.List;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceQuery;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reading CopyData off PgJDBC's stream runs only on the PgJDBC it was tested with: switched off, on another version,
 * or with a member missing or changed, the reader takes {@code readFromCopy()} and produces the same bytes.
 */
class CopyFramesFastPathTest {
    private static final String VERSION_PROPERTY = DriverVersion.SIMULATED_VERSION_PREFIX + "pgjdbc";
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("fastpath");
        TypeFidelityTest.createAllTypes(harness);
        harness.bothSql("CREATE TABLE mixed (id int, blob bytea)");
        harness.sourceSql("CREATE FUNCTION noisy(i int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF i % 7 = 0 THEN RAISE NOTICE 'row %', i; END IF; RETURN i; END $$",
                // rows larger than the 64 KiB packing buffer between small ones
                "INSERT INTO mixed SELECT g, CASE WHEN g % 5 = 0 THEN decode(repeat(md5(g::text), 5000), 'hex') "
                        + "ELSE decode(md5(g::text), 'hex') END FROM generate_series(1, 200) AS g");
    }

    @AfterEach
    void clearProperties() {
        System.clearProperty(CopyDataFrames.FAST_PATH.switchProperty());
        System.clearProperty(VERSION_PROPERTY);
    }

    @Test
    void theTestedPgJdbcReadsFrames() throws Exception {
        assertEquals("42.7.14", PgJdbcVersion.runtime().version().orElseThrow(), "the driver reports its version");
        FastPath.Selection<CopyDataFrames.Internals> selection = CopyDataFrames.selection();
        assertTrue(selection.fast(), selection.describe());
        assertEquals("fast path pgjdbc-copy-frames: on, rows read off PgJDBC's protocol stream into the 64 KiB "
                + "packing buffer (on PgJDBC 42.7.14)", selection.describe());
        try (Connection connection = harness.server.connect(harness.sourceDb)) {
            assertTrue(CopyDataFrames.of(connection, CopyOutReader.BUFFER_BYTES).isPresent());
        }
    }

    @Test
    void anotherPgJdbcVersionTakesReadFromCopy() throws Exception {
        System.setProperty(VERSION_PROPERTY, "42.7.15");
        FastPath.Selection<CopyDataFrames.Internals> selection = CopyDataFrames.selection();
        assertFalse(selection.fast());
        assertEquals("fast path pgjdbc-copy-frames: off, rows read with PgJDBC's CopyOut.readFromCopy(), a byte[] "
                + "each (PgJDBC 42.7.15 (simulated with -Dsluice.driver-version.pgjdbc) is not 42.7.14, the version "
                + "this path was written and tested for)", selection.describe());
        try (Connection connection = harness.server.connect(harness.sourceDb)) {
            assertTrue(CopyDataFrames.of(connection, CopyOutReader.BUFFER_BYTES).isEmpty());
        }
        // and the plan says so
        CopyHarness.Result result = harness.copy(sourceTable("all_types"), "all_types",
                distribution(DistributionMethod.NONE, null), 1);
        List<String> notes = result.projection().notes();
        assertEquals(selection.describe(), notes.getLast(), notes.toString());
        harness.assertSameRows("all_types", "all_types", TypeFidelityTest.ALL_COLUMNS);
    }

    @Test
    void theSwitchTurnsItOff() throws Exception {
        System.setProperty(CopyDataFrames.FAST_PATH.switchProperty(), "false");
        assertEquals("sluice.fastpath.pgjdbc-copy-frames", CopyDataFrames.FAST_PATH.switchProperty());
        assertTrue(CopyDataFrames.selection().describe().endsWith(
                "(switched off with -Dsluice.fastpath.pgjdbc-copy-frames=false)"), CopyDataFrames.selection().describe());
        try (Connection connection = harness.server.connect(harness.sourceDb)) {
            assertTrue(CopyDataFrames.of(connection, CopyOutReader.BUFFER_BYTES).isEmpty());
        }
    }

    @Test
    void aMissingOrChangedMemberTakesReadFromCopyWithoutAnException() {
        FastPath.Selection<CopyDataFrames.Internals> missing = CopyDataFrames.FAST_PATH.select(
                PgJdbcVersion.runtime(), () -> DriverMembers.find(() -> CopyDataFrames.Internals.find(
                        "pgStreamRenamed", "pgInput", "buffer", "index", "endIndex")));
        assertFalse(missing.fast());
        assertTrue(missing.reason().endsWith("lacks a member this path reads (NoSuchFieldException: "
                + "pgStreamRenamed)"), missing.reason());
        // a field of the same name but another type (here: the end index asked for as the buffer) is refused too
        FastPath.Selection<CopyDataFrames.Internals> changed = CopyDataFrames.FAST_PATH.select(
                PgJdbcVersion.runtime(), () -> DriverMembers.find(() -> CopyDataFrames.Internals.find(
                        "pgStream", "pgInput", "endIndex", "index", "endIndex")));
        assertFalse(changed.fast());
        assertTrue(changed.reason().contains("VisibleBufferedInputStream.endIndex is a int, not a [B"),
                changed.reason());
    }

    @Test
    void bothPathsReadTheSameBytes() throws Exception {
        for (var options : List.of(sourceTable("all_types"), sourceTable("mixed"),
                sourceQuery("SELECT noisy(id) AS id, blob FROM mixed"))) {
            byte[] fast = readAll(options);
            System.setProperty(CopyDataFrames.FAST_PATH.switchProperty(), "false");
            byte[] slow = readAll(options);
            System.clearProperty(CopyDataFrames.FAST_PATH.switchProperty());
            assertTrue(fast.length > 1000, "read " + fast.length + " bytes");
            assertArrayEquals(fast, slow, "bytes of " + options);
        }
    }

    /** One partition read by the connector's reader into memory. */
    private static byte[] readAll(io.sluice.spi.connector.Options options) throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(options);
        List<Column> columns = source.columns();
        SourceProjection projection = source.project(columns.stream().map(c -> new ColumnPair(c, c)).toList());
        SourcePartition partition = source.plan(new PlanRequest(distribution(DistributionMethod.NONE, null), 1,
                1000)).getFirst();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
             PartitionReader reader = session.openReader(partition, projection)) {
            reader.transferTo(bytes::write);
        }
        return bytes.toByteArray();
    }
}
