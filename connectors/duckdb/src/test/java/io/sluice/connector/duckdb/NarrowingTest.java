package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceProjection;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spark writes BIGINT (and BIGINT[]) for every integer; targets use integer and integer[]. Such narrowings load as
 * long as each value fits (as PostgreSQL's own assignment casts do), are listed in the plan, and a value that does
 * not fit fails its partition naming file, row, column and value, with nothing of it committed.
 */
class NarrowingTest {
    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;

    @BeforeAll
    static void setUp() throws Exception {
        try (Connection c = DuckDbFixtures.duckdb(); Statement s = c.createStatement()) {
            s.execute("COPY (SELECT range::BIGINT AS n, [range, -range]::BIGINT[] AS l, (range * 10)::DECIMAL(12,0) AS d, "
                    + "(range % 7)::INTEGER AS small FROM range(1000)) TO '" + dir.resolve("fits.parquet")
                    + "' (FORMAT parquet)");
            s.execute("COPY (SELECT * FROM (VALUES (1::BIGINT, [1]::BIGINT[]), (2, [2]), (2147483648, [3]), (4, [4])) "
                    + "t(n, l)) TO '" + dir.resolve("too-big.parquet") + "' (FORMAT parquet)");
            s.execute("COPY (SELECT * FROM (VALUES (1::BIGINT, [1]::BIGINT[]), (2, [2, -2147483649])) t(n, l)) TO '"
                    + dir.resolve("too-big-element.parquet") + "' (FORMAT parquet)");
            s.execute("COPY (SELECT [1.5, 2.5]::DOUBLE[] AS f, TIMESTAMP '2026-01-01 10:00' AS ts) TO '"
                    + dir.resolve("lossy.parquet") + "' (FORMAT parquet)");
        }
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_narrowing"));
        pg.execute("CREATE TABLE fits (n integer, l integer[], d integer, small smallint)");
        pg.execute("CREATE TABLE pairs (n integer, l integer[])");
        pg.execute("CREATE TABLE lossy (f integer[], ts date)");
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @Test
    void valuesThatFitLoadExactlyAndThePlanListsEachNarrowing() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("files", "fits.parquet")));
        SourceProjection projection = source.project(pg.pairsByName(source, "fits"));
        List<String> notes = projection.notes();
        assertTrue(notes.contains("n: BIGINT narrowed to integer, each value checked (DUCK302 names the row that "
                + "does not fit)"), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("l: BIGINT[] elements narrowed to integer, each value "
                + "checked")), notes.toString());
        assertTrue(notes.contains("d: DECIMAL(12,0) narrowed to integer, each value checked (DUCK302 names the row "
                + "that does not fit)"), notes.toString());
        assertTrue(notes.contains("small: INTEGER narrowed to smallint, each value checked (DUCK302 names the row "
                + "that does not fit)"), notes.toString());

        assertEquals(1000, pg.load(source, "fits", Distribution.none(), 1));
        assertEquals(List.of(List.of("1000", "499500", "0", "4995000", "2997")), pg.query("SELECT count(*), sum(n), "
                + "sum(l[1] + l[2]), sum(d), sum(small) FROM fits"));
        assertEquals(List.of(List.of("{999,-999}")), pg.query("SELECT l::text FROM fits WHERE n = 999"));
    }

    @Test
    void aValueThatDoesNotFitFailsNamingFileRowColumnAndValueAndCommitsNothing() throws Exception {
        Source source = connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("files", "too-big.parquet")));
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> pg.load(source, "pairs", Distribution.none(), 1));
        assertEquals(ErrorKind.DATA, e.kind(), e.getMessage());
        assertEquals("DUCK302", e.code());
        assertTrue(e.getMessage().matches("value out of range for integer in column \"n\" of .*too-big\\.parquet.*: "
                + "'2147483648' \\(row 3 as read\\)"), e.getMessage());
        assertEquals(List.of(List.of("0")), pg.query("SELECT count(*) FROM pairs"));

        Source elements = connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("files", "too-big-element.parquet")));
        ConnectorException element = assertThrows(ConnectorException.class,
                () -> pg.load(elements, "pairs", Distribution.none(), 1));
        assertEquals("DUCK302", element.code());
        assertTrue(element.getMessage().matches("value out of range for integer in column \"l\" of "
                + ".*too-big-element\\.parquet.*: '-2147483649' \\(row 2 as read\\)"), element.getMessage());
        assertEquals(List.of(List.of("0")), pg.query("SELECT count(*) FROM pairs"));
    }

    /** Losing information stays refused, and each fix's SQL runs in DuckDB against the same file as written. */
    @Test
    void lossyConversionsStayRefusedWithFixesThatAreValidSqlForTheColumn() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("files", "lossy.parquet")));
        List<Column> columns = source.columns();
        List<Column> targets = pg.targetColumns("lossy");
        for (int i = 0; i < columns.size(); i++) {
            ColumnPair pair = new ColumnPair(columns.get(i), targets.get(i));
            ConnectorException e = assertThrows(ConnectorException.class, () -> source.project(List.of(pair)));
            assertEquals("DUCK201", e.code(), e.getMessage());
            String fix = e.fix().orElseThrow();
            String sql = fix.substring(fix.lastIndexOf(": ") + 2);
            assertTrue(!sql.contains("[]\""), "no element pseudo-column in " + fix);
            try (Connection c = DuckDbFixtures.duckdb(); Statement s = c.createStatement()) {
                s.executeQuery("SELECT " + sql + " FROM read_parquet('" + dir.resolve("lossy.parquet") + "')")
                        .close();
            } catch (java.sql.SQLException invalid) {
                throw new AssertionError("the fix of " + columns.get(i).name() + " is not valid SQL: " + fix, invalid);
            }
        }
    }
}
