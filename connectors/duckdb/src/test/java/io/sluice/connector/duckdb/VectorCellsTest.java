package io.sluice.connector.duckdb;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceProjection;
import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.DriverVersion;
import io.sluice.toolkit.driver.FastPath;

import org.duckdb.DuckDBChunkedResult;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBPreparedStatement;
import org.duckdb.DuckDBReadableVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NULL masks and fixed-width values read from the vectors' buffers give the bytes the checked getters give, over
 * several chunks with NULLs, negatives and infinite dates; the buffers are read only on the tested duckdb_jdbc and
 * for a vector of the expected type. Also the connection defaults that bound a load's CPU and memory.
 */
class VectorCellsTest {
    private static final String VERSION_PROPERTY = DuckDbJdbcVersion.SIMULATED_VERSION_PROPERTY;
    /** 5000 rows (three chunks): every carrier the cells read, each with its own NULL pattern. */
    private static final String NUMBERS_QUERY = "SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000003 - 2500000000 END"
            + " AS b, CASE WHEN i % 5 = 0 THEN NULL ELSE CAST(i AS INTEGER) - 2500 END AS n, CASE WHEN i % 11 = 0 "
            + "THEN NULL WHEN i = 1 THEN DATE 'infinity' WHEN i = 2 THEN DATE '-infinity' ELSE DATE '1969-06-01' + "
            + "CAST(i AS INTEGER) END AS d, CASE WHEN i % 3 = 0 THEN NULL ELSE CAST((i - 2500) * 123.45 AS DECIMAL(15,2))"
            + " END AS p, CASE WHEN i % 13 = 0 THEN NULL ELSE TIMESTAMP '1999-12-31 23:00:00' + to_microseconds(i * "
            + "1234567) END AS ts, CASE WHEN i % 17 = 0 THEN NULL ELSE DATE '2020-02-02' + CAST(i AS INTEGER) END AS dt"
            + " FROM range(5000) AS r(i)";

    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;

    @BeforeAll
    static void setUp() throws Exception {
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_vector_cells"));
        pg.execute("CREATE TABLE numbers (b bigint, n integer, d date, p numeric(15,2), ts timestamp, dt timestamp)");
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @AfterEach
    void clearProperties() {
        System.clearProperty(VectorCells.FAST_PATH.switchProperty());
        System.clearProperty(VERSION_PROPERTY);
    }

    @Test
    void theTestedDuckDbJdbcReadsTheBuffersAndThePlanSaysSo() throws Exception {
        FastPath.Selection<VectorCells.Members> selection = VectorCells.selection();
        assertTrue(selection.fast(), selection.describe());
        assertEquals("fast path duckdb-vector-cells: on, NULL masks and fixed-width values read from the vectors' "
                + "buffers (on duckdb_jdbc 1.5.5.1)", selection.describe());
        assertTrue(project().notes().contains(selection.describe()), project().notes().toString());
        assertTrue(new DuckDbConnectorFactory().runtimeNotes().contains(selection.describe()));

        System.setProperty(VectorCells.FAST_PATH.switchProperty(), "false");
        assertTrue(project().notes().contains("fast path duckdb-vector-cells: off, values read with "
                + "DuckDBReadableVector's checked getters (switched off with "
                + "-Dsluice.fastpath.duckdb-vector-cells=false)"), project().notes().toString());
    }

    @Test
    void bothPathsEncodeTheSameBytesAndPostgresReadsTheValues() throws Exception {
        byte[] fast = pg.encode(numbersSource(), "numbers");
        System.setProperty(VectorCells.FAST_PATH.switchProperty(), "false");
        byte[] slow = pg.encode(numbersSource(), "numbers");
        assertTrue(fast.length > 100_000, "read " + fast.length + " bytes");
        assertArrayEquals(fast, slow);

        System.clearProperty(VectorCells.FAST_PATH.switchProperty());
        assertEquals(5000, pg.load(numbersSource(), "numbers", Distribution.none(), 1));
        try (Connection duck = DuckDbFixtures.duckdb(); Statement s = duck.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(b), sum(b), count(n), sum(n), count(d), "
                     + "CAST(min(d) FILTER (WHERE isfinite(d)) AS VARCHAR), count(p), sum(p), count(ts), "
                     + "strftime(max(ts), '%Y-%m-%d %H:%M:%S.%f'), count(dt) FROM (" + NUMBERS_QUERY + ")")) {
            rs.next();
            List<String> expected = List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                    rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
                    rs.getString(10), rs.getString(11));
            assertEquals(List.of(expected), pg.query("SELECT count(b), sum(b), count(n), sum(n), count(d), "
                    + "min(d) FILTER (WHERE isfinite(d))::text, count(p), sum(p), count(ts), "
                    + "to_char(max(ts), 'YYYY-MM-DD HH24:MI:SS.US'), count(dt) FROM numbers"));
        }
        assertEquals(List.of(List.of("infinity", "-infinity")), pg.query("SELECT max(d)::text, min(d)::text "
                + "FROM numbers"));
    }

    @Test
    void theBuffersAreReadOnlyForTheExpectedTypeOnTheTestedDriver() throws Exception {
        try (Connection c = DuckDbFixtures.duckdb();
             DuckDBPreparedStatement statement = c.unwrap(DuckDBConnection.class)
                     .prepare("SELECT CAST(range AS BIGINT) AS b FROM range(3)");
             DuckDBChunkedResult result = statement.query()) {
            assertTrue(result.nextChunk());
            DuckDBReadableVector vector = result.chunk().vector(0);
            VectorCells cells = VectorCells.forReader();
            cells.bind(vector, DuckDBColumnType.BIGINT, Long.BYTES);
            assertTrue(cells.readsBuffers());
            assertEquals(2, cells.getLong(2));
            assertFalse(cells.isNull(2));

            cells.bind(vector, DuckDBColumnType.INTEGER, Integer.BYTES); // a vector of another type: the getters
            assertFalse(cells.readsBuffers());

            System.setProperty(VERSION_PROPERTY, "1.5.5.0");
            VectorCells other = VectorCells.forReader();
            other.bind(vector, DuckDBColumnType.BIGINT, Long.BYTES);
            assertFalse(other.readsBuffers());
            assertEquals(2, other.getLong(2));
        }
    }

    @Test
    void aMissingOrChangedMemberTakesTheGettersWithoutAnException() {
        DriverVersion tested = DuckDbJdbcVersion.runtime();
        FastPath.Selection<VectorCells.Members> changed = VectorCells.FAST_PATH.select(tested,
                () -> DriverMembers.find(() -> new VectorCells.Members(
                        DuckDBReadableVector.class.getDeclaredField("rowCount"), null)));
        assertFalse(changed.fast());
        assertTrue(changed.reason().contains("data is null") || changed.reason().contains("validity is null"),
                changed.reason());
    }

    @Test
    void aConnectionRunsOneDuckDbThreadWithoutTheRemoteFileCacheUnlessTold() throws Exception {
        assertEquals(List.of("1", "false"), settings(Map.of()));
        assertEquals(List.of("3", "true"), settings(Map.of("threads", 3L, "external-file-cache", true)));
    }

    private static List<String> settings(Map<String, ?> options) throws Exception {
        DuckDbSettings settings = DuckDbSettings.from(new ConnectionConfig("duck",
                Options.of(DuckDbOptions.CONNECTION, options), dir, dir.resolve("state")));
        try (DuckDbDatabase database = new DuckDbDatabase(settings);
             DuckDBConnection c = database.connect(false); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('threads'), "
                     + "current_setting('enable_external_file_cache')")) {
            rs.next();
            return List.of(rs.getString(1), rs.getString(2));
        }
    }

    private static SourceProjection project() throws Exception {
        Source source = numbersSource();
        return source.project(pg.pairsByName(source, "numbers"));
    }

    private static Source numbersSource() throws Exception {
        return connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", NUMBERS_QUERY)));
    }
}
