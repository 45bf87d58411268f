package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceProjection;
import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.DriverVersion;
import io.sluice.toolkit.driver.FastPath;

import org.duckdb.DuckDBChunkedResult;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBPreparedStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The string-cell fast path runs only on the duckdb_jdbc it was tested with, and otherwise text comes from
 * {@code getString()} with the same bytes; the chunk check has no public alternative, so without it DuckDB sources
 * refuse to run at preflight (DUCK113).
 */
class DuckDbFastPathsTest {
    private static final String VERSION_PROPERTY = DuckDbJdbcVersion.SIMULATED_VERSION_PROPERTY;
    /** Text of 0-40 characters of 1- to 4-byte UTF-8, inline and out of line, NULLs and empties, over 3 chunks. */
    private static final String TEXT_QUERY = "SELECT CAST(i AS INTEGER) AS i, s AS t, s AS v, CAST(to_json(s) AS VARCHAR)"
            + " AS j FROM (SELECT i, CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN '' ELSE repeat(substr("
            + "'aé€😀', 1 + CAST(i % 4 AS INTEGER), 1), CAST(i % 41 AS INTEGER)) || CAST(i AS VARCHAR) END AS s "
            + "FROM range(5000) AS r(i))";

    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;

    @BeforeAll
    static void setUp() throws Exception {
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_fastpaths"));
        pg.execute("CREATE TABLE texts (i integer, t text, v varchar(48), j jsonb)");
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @AfterEach
    void clearProperties() {
        System.clearProperty(StringCells.FAST_PATH.switchProperty());
        System.clearProperty(VERSION_PROPERTY);
    }

    @Test
    void theTestedDuckDbJdbcCopiesFromTheCellsAndChecksForErrors() throws Exception {
        assertEquals("1.5.5.1", DuckDbJdbcVersion.runtime().version().orElseThrow(), "the driver jar says");
        FastPath.Selection<StringCells.Internals> selection = StringCells.selection();
        assertTrue(selection.fast(), selection.describe());
        assertTrue(selection.describe().startsWith("fast path duckdb-string-cells: on, text copied from DuckDB's "
                + "string_t cells"), selection.describe());
        ChunkErrors.require();
        assertEquals("mid-query failures: detected with DuckDBChunkedResult.checkError() of duckdb_jdbc 1.5.5.1",
                ChunkErrors.describe());
        List<String> notes = project(TEXT_QUERY).notes();
        assertEquals(List.of(selection.describe(), ChunkErrors.describe()), notes.subList(notes.size() - 2,
                notes.size()));
    }

    @Test
    void bothTextPathsEncodeTheSameBytes() throws Exception {
        byte[] fast = pg.encode(connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("query", TEXT_QUERY))), "texts");
        System.setProperty(StringCells.FAST_PATH.switchProperty(), "false");
        assertTrue(StringCells.forReader().isEmpty());
        byte[] slow = pg.encode(connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("query", TEXT_QUERY))), "texts");
        assertTrue(fast.length > 100_000, "read " + fast.length + " bytes");
        assertArrayEquals(fast, slow);
    }

    @Test
    void aTextEncoderReadsTheCellsOnlyWhenTheFastPathIsOn() throws Exception {
        try (Connection c = DuckDbFixtures.duckdb();
             DuckDBPreparedStatement statement = c.unwrap(DuckDBConnection.class)
                     .prepare("SELECT 'a value longer than twelve bytes' AS t");
             DuckDBChunkedResult result = statement.query()) {
            assertTrue(result.nextChunk());
            assertTrue(bound(result.chunk()).readsCells());
            System.setProperty(StringCells.FAST_PATH.switchProperty(), "false");
            assertFalse(bound(result.chunk()).readsCells());
            System.clearProperty(StringCells.FAST_PATH.switchProperty());
            System.setProperty(VERSION_PROPERTY, "1.5.5.0");
            assertFalse(bound(result.chunk()).readsCells());
        }
    }

    private static TextEncoders.TextEncoder bound(DuckDBDataChunkReader chunk) {
        TextEncoders.TextEncoder encoder = new TextEncoders.TextEncoder(0, PgType.parse("text", 0),
                new ColumnOrigin("t", "test"));
        encoder.bind(chunk);
        return encoder;
    }

    @Test
    void theSwitchTurnsTheCellsOffAndThePlanSaysSo() throws Exception {
        System.setProperty(StringCells.FAST_PATH.switchProperty(), "false");
        assertEquals("sluice.fastpath.duckdb-string-cells", StringCells.FAST_PATH.switchProperty());
        String note = project(TEXT_QUERY).notes().reversed().get(1);
        assertEquals("fast path duckdb-string-cells: off, text read with DuckDBReadableVector.getString(), a String "
                + "each (switched off with -Dsluice.fastpath.duckdb-string-cells=false)", note);
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", TEXT_QUERY)));
        assertEquals(5000, pg.load(source, "texts", Distribution.none(), 1));
        assertEquals(List.of(List.of("5000", "4545", "t")), pg.query("SELECT count(*), count(t), "
                + "bool_and(t = v AND j = to_jsonb(t)) FROM texts"));
    }

    @Test
    void anotherDuckDbJdbcTakesGetStringAndRefusesToRunWithoutTheTestedChunkCheck() throws Exception {
        System.setProperty(VERSION_PROPERTY, "1.5.6.0");
        FastPath.Selection<StringCells.Internals> selection = StringCells.selection();
        assertFalse(selection.fast());
        assertTrue(selection.reason().startsWith("duckdb_jdbc 1.5.6.0 (simulated with "
                + "-Dsluice.driver-version.duckdb-jdbc) is not 1.5.5.1"), selection.reason());
        assertTrue(StringCells.forReader().isEmpty());

        // No public way to tell a failed read from a finished one: preflight refuses, before any row is read.
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", "SELECT 1 AS i")));
        ConnectorException e = assertThrows(ConnectorException.class, source::columns);
        assertEquals(ErrorKind.PREFLIGHT, e.kind());
        assertEquals("DUCK113", e.code());
        assertTrue(e.getMessage().startsWith("duckdb_jdbc 1.5.6.0 (simulated with -Dsluice.driver-version.duckdb-jdbc)"
                + " is not 1.5.5.1, the version whose mid-query failures Sluice was tested to detect. Without "
                + "DuckDBChunkedResult.checkError() a read that fails mid-query"), e.getMessage());
        assertTrue(e.getMessage().contains("Sluice refuses to read DuckDB sources"), e.getMessage());
        assertTrue(e.fix().orElseThrow().contains("1.5.5.1"), e.toString());
        assertTrue(ChunkErrors.describe().startsWith("mid-query failures: cannot be detected, DuckDB sources refuse "
                + "to run (DUCK113: duckdb_jdbc 1.5.6.0"), ChunkErrors.describe());
    }

    @Test
    void aMissingOrChangedMemberTakesGetStringWithoutAnException() {
        DriverVersion tested = DuckDbJdbcVersion.runtime();
        FastPath.Selection<StringCells.Internals> missing = StringCells.FAST_PATH.select(tested,
                () -> DriverMembers.find(() -> StringCells.Internals.find("dataRenamed", "duckdb_vector_get_string")));
        assertFalse(missing.fast());
        assertTrue(missing.reason().endsWith("(NoSuchFieldException: dataRenamed)"), missing.reason());
        FastPath.Selection<StringCells.Internals> changed = StringCells.FAST_PATH.select(tested,
                () -> DriverMembers.find(() -> StringCells.Internals.find("rowCount", "duckdb_vector_get_string")));
        assertFalse(changed.fast());
        assertTrue(changed.reason().contains("DuckDBReadableVector.rowCount is a long, not a ByteBuffer"),
                changed.reason());
    }

    @Test
    void aMissingOrChangedCheckErrorIsAPreflightProblem() {
        DriverVersion tested = DuckDbJdbcVersion.runtime();
        assertEquals("duckdb_jdbc 1.5.5.1 has no usable DuckDBChunkedResult.checkError() (NoSuchMethodException: "
                        + "org.duckdb.DuckDBChunkedResult.checkErrorRenamed())",
                ChunkErrors.problem(tested, () -> DriverMembers.find(() -> ChunkErrors.find("checkErrorRenamed")))
                        .orElseThrow());
        // chunk() exists but returns the chunk: not the void check this class calls
        assertTrue(ChunkErrors.problem(tested, () -> DriverMembers.find(() -> ChunkErrors.find("chunk")))
                .orElseThrow().contains("returns org.duckdb.DuckDBDataChunkReader, not void"));
        assertTrue(ChunkErrors.problem(tested, () -> DriverMembers.find(() -> ChunkErrors.find("checkError")))
                .isEmpty());
    }

    private static SourceProjection project(String query) throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", query)));
        return source.project(pg.pairsByName(source, "texts"));
    }
}
