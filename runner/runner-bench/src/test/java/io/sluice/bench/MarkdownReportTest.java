package io.sluice.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MarkdownReportTest {
    private static final long ROWS = 600_000;
    private static final long BYTES = 120_000_000;

    @Test
    void ratiosAreAgainstTheIngestLimitAndTheFastestBaselineOfTheSameRun() {
        ScenarioResult limit = ok(info(ScenarioRole.INGEST_LIMIT, "server-side COPY FROM file", SluiceSlug.INGEST_LIMIT, 0),
                2.0, 2.0, 2.0);
        ScenarioResult psql = ok(info(ScenarioRole.BASELINE, "psql | psql (binary COPY)", "psql-pipe", 0), 2.5);
        ScenarioResult duck = ok(info(ScenarioRole.BASELINE, "DuckDB postgres_scanner, threads",
                "duckdb-postgres_scanner-threads", 1), 4.0);
        ScenarioResult sluice1 = ok(info(ScenarioRole.SLUICE, "Sluice ctid", SluiceSlug.CTID, 1), 2.1, 2.2, 2.0);
        ScenarioResult sluice2 = ok(info(ScenarioRole.SLUICE, "Sluice ctid", SluiceSlug.CTID, 2), 2.0);
        ScenarioResult dump = ScenarioResult.skipped(info(ScenarioRole.BASELINE, "pg_dump -Fc | pg_restore",
                "pg_dump-restore", 0), "client tools are PostgreSQL 15, servers are 18", ROWS, BYTES);
        ScenarioResult failed = new ScenarioResult(info(ScenarioRole.SLUICE, "Sluice range (l_orderkey)",
                SluiceSlug.RANGE, 1), ScenarioResult.Status.FAILED, Optional.of("sluice exited with 1:\nboom"),
                List.of(), ROWS, BYTES);
        List<ScenarioResult> results = List.of(limit, psql, dump, duck, sluice1, sluice2, failed);

        ResultComparison comparison = new ResultComparison(results);
        assertEquals(2.0 / 2.1, comparison.toIngestLimit(sluice1).getAsDouble(), 1e-9);
        assertEquals(2.5 / 2.1, comparison.toBestBaseline(sluice1).getAsDouble(), 1e-9);
        assertEquals(psql, comparison.bestBaseline(Section.LINEITEM_LOGGED).orElseThrow());

        String md = new MarkdownReport(new MachineDescription(List.of(new MachineDescription.Entry("date", "today"),
                new MachineDescription.Entry("commit", "abc123"))), "bash runner/runner-bench/bench.sh --scale 0.1",
                List.of(), results, "throughput.png", java.util.Optional.empty()).render();
        assertTrue(md.contains("| `lineitem-logged/sluice-ctid-d1` | Sluice ctid | 1 | 2.10 | 2.00–2.20 | 285,714 | 57.1 "
                + "| 0.95× | 1.19× | 1.05 | 25.0 % | 100 |"), md);
        assertTrue(md.contains("psql \\| psql (binary COPY)"), "pipes escaped in cells");
        assertTrue(md.contains("`lineitem-logged/pg_dump-restore` skipped: client tools are PostgreSQL 15"), md);
        assertTrue(md.contains("**FAILED**: sluice exited with 1: ⏎ boom"), md);
        assertTrue(md.contains("| lineitem (LOGGED): Sluice ctid degree 1 ≥ 0.9× the ingest limit | 0.95× the limit | pass |"),
                md);
        assertTrue(md.contains("Sluice ctid degree 1 faster than psql \\| psql | 1.19× psql \\| psql | pass |"), md);
        assertTrue(md.contains("degree 2 not slower than degree 1 | 1.05× degree 1 | pass |"), md);
    }

    @Test
    void chartIsAPngWithOnePanelPerSection(@TempDir Path dir) throws Exception {
        List<ScenarioResult> results = List.of(
                ok(info(ScenarioRole.INGEST_LIMIT, "server-side COPY FROM file", SluiceSlug.INGEST_LIMIT, 0), 2.0),
                ok(info(ScenarioRole.SLUICE, "Sluice ctid", SluiceSlug.CTID, 1), 2.1),
                ok(info(ScenarioRole.SLUICE, "Sluice ctid", SluiceSlug.CTID, 2), 2.0));
        Path png = dir.resolve("chart.png");
        new ThroughputChart(results, "test").write(png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(720, image.getWidth(), "one section: one panel");
    }

    @Test
    void parsesUrlsWithCredentials() {
        PgEndpoint e = PgEndpoint.parse("jdbc:postgresql://db1:6543/shop?user=loader&password=s%3Dcret");
        assertEquals(new PgEndpoint("db1", 6543, "shop", "loader", "s=cret"), e);
        assertEquals("loader@db1:6543/shop", e.toString());
        assertEquals("numeric(15,2)", TpchGenerator.pgType("DECIMAL(15,2)"));
    }

    private static ScenarioInfo info(ScenarioRole role, String tool, String slug, int degree) {
        return new ScenarioInfo(Section.LINEITEM_LOGGED, BenchTarget.LINEITEM_LOGGED, role, tool, slug, degree);
    }

    private static ScenarioResult ok(ScenarioInfo info, double... seconds) {
        List<RunMeasurement> runs = java.util.Arrays.stream(seconds).mapToObj(s -> new RunMeasurement(
                new ToolRun(s, OptionalDouble.of(s / 2), OptionalLong.of(102_400)), s * 2, ROWS)).toList();
        return new ScenarioResult(info, ScenarioResult.Status.OK, Optional.empty(), runs, ROWS, BYTES);
    }
}
