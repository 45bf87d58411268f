package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A truncate load that one worker writes runs in one target transaction: TRUNCATE, every partition (COPY FREEZE),
 * COMMIT, reading the source whole. A failure mid-stream leaves the target's old rows and a ledger with nothing done, so a resume
 * starts over; a transient failure retries the whole stream. With more workers the truncation commits first.
 */
class OneTransactionTruncateTest {
    private static final int ROWS = 20_000;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** Items whose rows 10001-10100 (the middle of the heap) break the target's check. */
    private LedgerFixture fixture(String prefix) throws Exception {
        LedgerFixture f = new LedgerFixture(dir, prefix, 0);
        f.sql(f.source, "INSERT INTO items SELECT g, CASE WHEN g BETWEEN 10001 AND 10100 THEN repeat('x', 40) "
                + "ELSE 'item ' || g END, g / 7.0 FROM generate_series(1, " + ROWS + ") g", "ANALYZE items");
        f.sql(f.target, "ALTER TABLE items ADD CONSTRAINT short_names CHECK (length(name) < 20)",
                "INSERT INTO items VALUES (-1, 'old one', 1), (-2, 'old two', 2), (-3, 'old three', 3)");
        return f;
    }

    @Test
    void planShowsOneTransactionWithFreezeOnlyForASingleWorker() throws Exception {
        LedgerFixture f = fixture("txplan");
        JsonNode one = plan(f.spec("one.yaml", "ctid", 1, 2_000));
        assertEquals("stream", one.get("target-transactions").asString(), one.toString());
        assertTrue(one.get("target-statement").asString().endsWith("FROM STDIN (FORMAT binary, FREEZE)"),
                one.toString());
        assertEquals(1, one.get("partitions").size(), "one worker, one transaction: the source is read whole, "
                + "not in ctid ranges of 2,000 rows: " + one);

        JsonNode two = plan(f.spec("two.yaml", "ctid", 2, 2_000));
        assertEquals("partition", two.get("target-transactions").asString(), two.toString());
        assertFalse(two.get("target-statement").asString().contains("FREEZE"), two.toString());
        assertTrue(two.get("partitions").size() >= 10, two.toString());
    }

    /**
     * A small load into a table with no page keeps the table (its file stays, no FREEZE needed): what TRUNCATE would
     * make and drop again; a table with rows is truncated, as a table with pages would be, rows or not.
     */
    @Test
    void aSmallLoadKeepsAnEmptyTableAndTruncatesOneWithRows() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "txkeep", 0);
        f.sql(f.source, "INSERT INTO items SELECT g, 'item ' || g, g / 7.0 FROM generate_series(1, 500) g",
                "ANALYZE items");
        Path spec = f.spec("items.yaml", "ctid", 1, 2_000);
        long file = f.scalar(f.target, "SELECT pg_relation_filenode('items')");
        CliRun first = CliRun.of("run", spec.toString());
        assertEquals(0, first.exitCode(), first.all());
        assertEquals(500, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(file, f.scalar(f.target, "SELECT pg_relation_filenode('items')"),
                "the empty table was kept, not truncated");

        CliRun second = CliRun.of("run", spec.toString()); // the table has rows now: truncated in the transaction
        assertEquals(0, second.exitCode(), second.all());
        assertEquals(500, f.scalar(f.target, "SELECT count(*) FROM items"), "the old rows replaced, not added to");
        assertTrue(file != f.scalar(f.target, "SELECT pg_relation_filenode('items')"), "truncated this time");
    }

    @Test
    void aRowFailingMidStreamLeavesTheOldRowsAndAResumeStartsOver() throws Exception {
        LedgerFixture f = fixture("txfail");
        Path spec = f.spec("items.yaml", "ctid", 1, 2_000);
        Path summary = dir.resolve("summary.json");

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "tx-1", "--summary-json", summary.toString());

        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("short_names"), failed.err());
        assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM items WHERE name LIKE 'old %'"),
                "the truncation rolled back with the partitions: the old rows are all there");
        assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM items"), "and nothing else");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = 'tx-1' "
                + "AND state = 'done'"), "no partition is recorded done");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM sluice.run_streams WHERE run_id = 'tx-1' "
                + "AND truncated_at IS NOT NULL"), "nor the truncation");
        JsonNode reports = JsonMapper.builder().build().readTree(summary.toFile()).get("streams").get(0)
                .get("partition-reports");
        assertEquals(1, reports.size(), "the source was read whole, as one partition: " + reports);
        assertEquals("failed", reports.get(0).get("state").asString(), reports.toString());

        f.sql(f.target, "ALTER TABLE items DROP CONSTRAINT short_names");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "tx-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(0, f.differences(), "the resumed run truncated (the first one's truncation never happened)");
    }

    @Test
    void aFileSourceKeepsOnePartitionPerFileAndAFailingFileRollsBackTheFilesBefore() throws Exception {
        LedgerFixture f = fixture("txfiles");
        Path files = Files.createDirectories(dir.resolve("lake"));
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            for (int file = 1; file <= 4; file++) {
                s.execute(parquet(files.resolve("items-" + file + ".parquet"), (file - 1) * 2_000 + 1, file * 2_000,
                        "'item ' || g"));
            }
            // The smallest file runs last (largest first), after four others were copied, and breaks the check.
            s.execute(parquet(files.resolve("items-5.parquet"), 8_001, 8_100, "repeat('x', 40)"));
        }
        Path spec = dir.resolve("files.yaml");
        Files.writeString(spec, """
                version: 1
                name: files-test
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: lake, files: "%s" }
                    target: { connection: dst, table: items }
                    distribution: { method: range, key: id }
                    degree: 1
                    load-mode: truncate
                """.formatted(f.pg.jdbcUrl(f.target), f.pg.user(), files.resolve("items-*.parquet")));
        JsonNode planned = plan(spec);
        assertEquals("stream", planned.get("target-transactions").asString(), planned.toString());
        assertEquals(5, planned.get("partitions").size(), "read whole means one partition per file: " + planned);

        Path summary = dir.resolve("files-summary.json");
        CliRun failed = CliRun.of("run", spec.toString(), "--summary-json", summary.toString());

        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("short_names"), failed.err());
        assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM items WHERE name LIKE 'old %'"), failed.all());
        assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM items"), "the four copied files rolled back");
        JsonNode reports = JsonMapper.builder().build().readTree(summary.toFile()).get("streams").get(0)
                .get("partition-reports");
        long rolledBack = 0;
        for (JsonNode report : reports) {
            if (report.path("error").asString("").startsWith("rolled back with the stream's transaction")) {
                rolledBack++;
            }
        }
        assertEquals(4, rolledBack, "the files before the failing one were copied, then rolled back: " + reports);
    }

    private static String parquet(Path file, int first, int last, String name) {
        return "COPY (SELECT g::BIGINT AS id, " + name + " AS name, (g / 7.0)::DECIMAL(10,2) AS price FROM range("
                + first + ", " + (last + 1) + ") t(g)) TO '" + file + "' (FORMAT parquet)";
    }

    @Test
    void withTwoWorkersTheTruncationCommitsFirstAndPartitionsCommitOnTheirOwn() throws Exception {
        LedgerFixture f = fixture("txtwo");
        CliRun failed = CliRun.of("run", f.spec("items.yaml", "ctid", 2, 2_000).toString());

        assertEquals(1, failed.exitCode(), failed.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items WHERE name LIKE 'old %'"), failed.all());
    }

    @Test
    void aTransientFailureMidStreamRetriesTheWholeStream() throws Exception {
        LedgerFixture f = fixture("txretry");
        // A gate on row 15000 (mid-stream) holds the COPY on an advisory lock the test owns, so the test
        // can end that backend while the transaction already holds the rows before it.
        f.sql(f.target, "ALTER TABLE items DROP CONSTRAINT short_names",
                "CREATE FUNCTION gate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 15000 THEN "
                        + "PERFORM pg_advisory_lock(4242); PERFORM pg_advisory_unlock(4242); END IF; "
                        + "RETURN NEW; END $$",
                "CREATE TRIGGER gate BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION gate()");
        Path spec = f.spec("items.yaml", "ctid", 1, 2_000, "retry: { max-attempts: 3, initial-backoff: 10ms }");
        CompletableFuture<CliRun> run;
        try (Connection gate = f.pg.connect(f.target); Statement s = gate.createStatement()) {
            s.execute("SELECT pg_advisory_lock(4242)");
            run = CompletableFuture.supplyAsync(() -> CliRun.of("run", spec.toString(), "--run-id", "tx-retry"));
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            long terminated = 0;
            while (terminated == 0 && System.nanoTime() < deadline && !run.isDone()) {
                terminated = f.scalar(f.target, "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                        + "FROM pg_stat_activity WHERE wait_event = 'advisory' AND query LIKE 'COPY %FREEZE%'");
                if (terminated == 0) {
                    Thread.sleep(10);
                }
            }
            assertEquals(1, terminated, "the COPY waited at the gate");
            s.execute("SELECT pg_advisory_unlock(4242)");
        }
        CliRun done = run.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertEquals(0, done.exitCode(), done.all());
        assertEquals(0, f.differences(), "the old rows are gone and every source row is there once");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_attempts WHERE run_id = 'tx-retry' "
                + "AND outcome = 'retried'"), done.all());
    }

    private static JsonNode plan(Path spec) throws Exception {
        CliRun plan = CliRun.of("plan", spec.toString(), "--format", "json");
        assertEquals(0, plan.exitCode(), plan.all());
        return JsonMapper.builder().build().readTree(plan.out()).get("streams").get(0);
    }
}
