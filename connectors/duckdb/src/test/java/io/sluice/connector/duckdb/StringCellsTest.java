package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.Source;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * VARCHAR values are copied from DuckDB's string_t cells, inline (up to 12 bytes) or out of line, with 1- to 4-byte
 * UTF-8 characters on both sides of that boundary, over several chunks, into text, varchar(n), char(n) and jsonb.
 */
class StringCellsTest {
    /** Same value in DuckDB and PostgreSQL: '', or 0-40 characters of one of 'a', 'é', '€', '😀' (1-4 bytes), then i. */
    private static final String VALUE = "CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN '' "
            + "ELSE repeat(substr('aé€😀', 1 + CAST(i % 4 AS INTEGER), 1), CAST(i % 41 AS INTEGER)) || CAST(i AS VARCHAR) END";
    private static final int ROWS = 5000; // three chunks of 2048

    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;

    @BeforeAll
    static void setUp() throws Exception {
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_strings"));
        pg.execute("CREATE TABLE strings (i integer, t text, v varchar(48), c char(48), j jsonb)");
        pg.execute("CREATE TABLE narrow (v varchar(5))");
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @Test
    void outOfLineValuesAreCopiedWithoutJniWhereTheRuntimeHasTheForeignMemoryApi() {
        assertEquals(Runtime.version().feature() >= 22, StringCells.copiesNatively());
    }

    @Test
    void everyValueArrivesEqual() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT i, s AS t, s AS v, s AS c, CAST(to_json(s) AS VARCHAR) AS j FROM (SELECT CAST(i AS INTEGER) AS i, "
                        + VALUE + " AS s FROM range(" + ROWS + ") AS r(i))")));
        assertEquals(ROWS, pg.load(source, "strings", Distribution.none(), 1));
        String expected = "SELECT i, " + VALUE.replace("CAST(i AS VARCHAR)", "i::text") + " AS s "
                + "FROM generate_series(0, " + (ROWS - 1) + ") AS g(i)";
        List<List<String>> bad = pg.query("SELECT l.i, l.t, e.s FROM strings l JOIN (" + expected + ") e USING (i) "
                + "WHERE l.t IS DISTINCT FROM e.s OR l.v IS DISTINCT FROM e.s OR rtrim(l.c) IS DISTINCT FROM rtrim(e.s) "
                + "OR l.j IS DISTINCT FROM to_jsonb(e.s) LIMIT 5");
        assertEquals(List.of(), bad);
        // The cases the cell layout distinguishes all occurred: NULL, empty, inline, out of line with 4-byte UTF-8.
        assertEquals(List.of(List.of(String.valueOf(ROWS), "t", "t", "t", "t")), pg.query("SELECT count(*), "
                + "bool_or(t IS NULL), bool_or(t = ''), bool_or(octet_length(t) BETWEEN 1 AND 12), "
                + "bool_or(octet_length(t) > 12 AND t LIKE '%😀%') FROM strings"));
    }

    @Test
    void aConstantValueIsReadForEveryRow() throws Exception {
        // DuckDB may produce a constant vector here; the reader must still see the value at every row.
        pg.execute("CREATE TABLE constants (t text, s text)");
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT 'the same value, longer than twelve bytes' AS t, 'short' AS s FROM range(" + ROWS + ")")));
        assertEquals(ROWS, pg.load(source, "constants", Distribution.none(), 1));
        assertEquals(List.of(List.of(String.valueOf(ROWS))), pg.query("SELECT count(*) FROM constants "
                + "WHERE t = 'the same value, longer than twelve bytes' AND s = 'short'"));
    }

    @Test
    void lengthLimitsCountCharactersNotBytes() throws Exception {
        // 5 characters in 15 bytes fit varchar(5); 6 do not.
        Source fits = connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("query", "SELECT '€€€€€' AS v")));
        assertEquals(1, pg.load(fits, "narrow", Distribution.none(), 1));
        Source tooLong = connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("query", "SELECT '€€€€€€' AS v")));
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> pg.load(tooLong, "narrow", Distribution.none(), 1));
        assertEquals(ErrorKind.DATA, e.kind());
        assertTrue(e.getMessage().contains("'€€€€€€'") && e.getMessage().contains("6 characters"), e.getMessage());
    }

    /**
     * {@code nul-bytes: strip} removes every NUL wherever it sits, in inline and out-of-line values alike, one or two
     * to a value; {@code reject} sets aside exactly the rows holding one.
     */
    @Test
    void nulBytesAreStrippedOrTheirRowsSetAsideWhereverTheySit() throws Exception {
        pg.execute("CREATE TABLE nuls (i integer, t text, e text)");
        // 0-24 bytes before the NUL, 0-10 after, a second NUL in one row in five, none in one row in seven
        String value = "CASE WHEN i % 7 = 0 THEN repeat('x', CAST(i % 30 AS INTEGER)) ELSE repeat('a', CAST(i % 25 AS "
                + "INTEGER)) || chr(0) || repeat('b', CAST(i % 11 AS INTEGER)) || CASE WHEN i % 5 = 0 THEN chr(0) || "
                + "'é' ELSE '' END END";
        String query = "SELECT CAST(i AS INTEGER) AS i, " + value + " AS t, replace(" + value + ", chr(0), '') AS e "
                + "FROM range(" + ROWS + ") AS r(i)";
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", query)));
        assertEquals(ROWS, pg.load(source, "nuls", Distribution.none(), 1, badRows(io.sluice.spi.read.BadRows.NulBytes
                .STRIP, new java.util.ArrayList<>())));
        assertEquals(List.of(List.of(String.valueOf(ROWS), "0")), pg.query("SELECT count(*), count(*) FILTER "
                + "(WHERE t IS DISTINCT FROM e) FROM nuls"));

        pg.execute("TRUNCATE nuls");
        List<io.sluice.spi.data.RejectedRow> rejected = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        long withNul = java.util.stream.IntStream.range(0, ROWS).filter(i -> i % 7 != 0).count();
        assertEquals(ROWS - withNul, pg.load(source, "nuls", Distribution.none(), 1,
                badRows(io.sluice.spi.read.BadRows.NulBytes.REJECT, rejected)));
        assertEquals(withNul, rejected.size());
        assertEquals(List.of(List.of("0")), pg.query("SELECT count(*) FROM nuls WHERE i % 7 <> 0"));
    }

    private static io.sluice.spi.read.BadRows badRows(io.sluice.spi.read.BadRows.NulBytes nulBytes,
                                                 List<io.sluice.spi.data.RejectedRow> rejected) {
        return new io.sluice.spi.read.BadRows() {
            @Override
            public boolean setsAside() {
                return true;
            }

            @Override
            public NulBytes nulBytes() {
                return nulBytes;
            }

            @Override
            public void reject(io.sluice.spi.data.RejectedRow row) {
                rejected.add(row);
            }
        };
    }
}
