package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rejects:} on real DuckDB and PostgreSQL: a feed of 1 M rows with every kind of bad row mixed in (too long,
 * out of range, a date PostgreSQL cannot hold, a NUL byte: found by the reader; NOT NULL, CHECK, a duplicate key, a
 * trigger's RAISE: found by the server), at degree 1 and 4, across a partition retry, a SIGKILL with --resume and a
 * fresh run; limits crossed by count and by ratio.
 */
class RejectsTest {
    /** The feed of the kill test: partitions long enough for a SIGKILL to land between two of them. */
    private static final int ROWS = 1_000_000;
    /** The feed of the degree test: every kind of bad row 200 times is what its assertions need. */
    private static final int DEGREE_ROWS = 200_000;
    /** Per 1,000 rows: one of each kind of bad row (two out of range). */
    private static final Map<String, Long> PER_THOUSAND = new TreeMap<>(Map.of("DUCK301", 1L, "DUCK302", 2L,
            "DUCK304", 1L, "23502", 1L, "23514", 1L, "23505", 1L, "P0001", 1L));

    @TempDir
    Path dir;

    @Test
    void everyGoodRowLoadsOnceAndEveryBadRowIsSetAsideOnceWithItsReasonAtDegreeOneAndFour() throws Exception {
        LedgerFixture f = fixture("rj1");
        long bad = bad(DEGREE_ROWS);
        Path one = spec(f, "one.yaml", DEGREE_ROWS, "none", 1, "rejects: { table: orders_rejects }");
        CliRun run = CliRun.of("run", one.toString(), "--run-id", "one");
        assertEquals(0, run.exitCode(), run.all());
        assertExact(f, "one", DEGREE_ROWS);
        assertTrue(run.all().contains(String.format(java.util.Locale.ROOT, "%,d rows set aside in orders_rejects", bad)), run.all());

        Path four = spec(f, "four.yaml", DEGREE_ROWS, "modulo", 4, "rejects: { table: orders_rejects }");
        Path summary = dir.resolve("four.json");
        CliRun again = CliRun.of("run", four.toString(), "--run-id", "four", "--summary-json", summary.toString(),
                "--junit-xml", dir.resolve("four.xml").toString(), "--report", dir.resolve("four.html").toString());
        assertEquals(0, again.exitCode(), again.all());
        assertExact(f, "four", DEGREE_ROWS);
        tools.jackson.databind.JsonNode stream = tools.jackson.databind.json.JsonMapper.builder().build()
                .readTree(Files.readString(summary)).get("streams").get(0);
        assertEquals(bad, stream.get("rejected-rows").asLong());
        assertEquals(3, stream.get("reject-reasons").size());
        long perPartition = 0;
        for (tools.jackson.databind.JsonNode p : stream.get("partition-reports")) {
            perPartition += p.get("rows-rejected").asLong();
            assertEquals(p.get("rows-read").asLong(), p.get("rows-written").asLong() + p.get("rows-rejected").asLong());
        }
        assertEquals(bad, perPartition);
        assertTrue(Files.readString(dir.resolve("four.xml")).contains(bad + " rows set aside"));
        String html = Files.readString(dir.resolve("four.html"));
        assertTrue(html.contains("Rows set aside") && html.contains("\"rejectedRows\":" + bad), "the HTML report");

        CliRun status = CliRun.of("status", four.toString(), "four");
        assertTrue(status.out().contains(String.format(java.util.Locale.ROOT, "rejects: %,d rows set aside", bad)),
                status.all());
        CliRun listed = CliRun.of("rejects", four.toString(), "four", "--limit", "5");
        assertEquals(0, listed.exitCode(), listed.all());
        assertTrue(listed.out().contains("stream orders: 5 newest row(s) set aside") && listed.out().contains(
                "partition modulo:"), listed.out());

        // What a rejected row keeps: its values as read (client side) or as the server decoded them.
        assertEquals("much too long name", f.scalarText(f.target, "SELECT row_data->>'name' FROM orders_rejects "
                + "WHERE run_id = 'four' AND error_code = 'DUCK301' AND row_data->>'id' = '1001'"));
        assertEquals("name", f.scalarText(f.target, "SELECT column_name FROM orders_rejects WHERE run_id = 'four' "
                + "AND error_code = 'DUCK301' LIMIT 1"));
        // Row numbers count as read in the partition: at degree 1 they are the feed's.
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'one' AND "
                + "error_code = '23502' AND row_data->>'id' = '4' AND row_data ? 'qty' AND row_data->'qty' = "
                + "'null'::jsonb AND column_name = 'qty' AND row_number = 4"));
        assertEquals(bad, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'one' AND "
                + "row_number = (row_data->>'id')::bigint"), "one partition: every row number is the id");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'four' AND "
                + "error_code = 'DUCK304' AND row_data->>'id' = '3' AND row_data->'name' = "
                + "'{\"split-at-nul\": [\"a\", \"b\"]}'::jsonb"), "a NUL, which jsonb cannot hold, unambiguously");
        assertTrue(f.scalarText(f.target, "SELECT error_message FROM orders_rejects WHERE run_id = 'four' AND "
                + "error_code = 'P0001' LIMIT 1").contains("refused by trigger"));
    }

    // Full tier only: 1 M rows: the quick tier's rejects are the degree test's; its SIGKILLs, the crash matrix's
    @Test
    @Tag(TestTier.FULL_ONLY)
    void aRetriedPartitionAndAKilledRunResumedOrRunAfreshLeaveEachRejectOnce() throws Exception {
        LedgerFixture f = fixture("rj2");
        // The first time row 500,000 is inserted the server answers with a serialization failure: the partition
        // is retried (a sequence does not roll back, so the second attempt goes through).
        f.sql(f.target, "CREATE SEQUENCE once", "CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ "
                + "BEGIN IF NEW.id = 500000 AND nextval('once') = 1 THEN RAISE EXCEPTION 'try again' USING "
                + "ERRCODE = '40001'; END IF; RETURN NEW; END $$", "CREATE TRIGGER fail_once BEFORE INSERT ON "
                + "orders FOR EACH ROW EXECUTE FUNCTION fail_once()");
        Path spec = spec(f, "retry.yaml", ROWS, "modulo", 4, "rejects: { table: orders_rejects }",
                "batch-size: 100000", "retry: { max-attempts: 3, initial-backoff: 10ms }");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "retried");
        assertEquals(0, run.exitCode(), run.all());
        assertTrue(run.all().contains("retry:") && run.all().contains("try again"), run.all());
        assertExact(f, "retried", ROWS);

        f.killAfterDone(spec, "killed", 2);
        long doneBefore = f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = "
                + "'killed' AND state = 'done'");
        assertTrue(doneBefore >= 2 && doneBefore < 4, "killed part way: " + doneBefore);
        assertEquals(f.scalar(f.target, "SELECT coalesce(sum(rows_rejected), 0) FROM sluice"
                + ".run_partitions WHERE run_id = 'killed'"), f.scalar(f.target, "SELECT count(*) FROM "
                + "orders_rejects WHERE run_id = 'killed'"), "a done partition's rejects committed with it, only");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "killed");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertExact(f, "killed", ROWS);

        f.killAfterDone(spec, "killed-again", 1);
        CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "fresh");
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertExact(f, "fresh", ROWS);
    }

    @Test
    void limitsByCountAndByRatioFailTheRunAndCommitNothingOfThePartitionThatCrossedThem() throws Exception {
        LedgerFixture f = fixture("rj3");
        Path count = spec(f, "count.yaml", 20_000, "modulo", 4, "rejects: { table: orders_rejects, max-rows: 100 }");
        CliRun byCount = CliRun.of("run", count.toString(), "--run-id", "count");
        assertEquals(1, byCount.exitCode(), byCount.all());
        assertTrue(byCount.all().contains("RUN060") && byCount.all().contains("more than max-rows 100"),
                byCount.all());
        consistentWithLedger(f, "count");
        assertTrue(f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'count'") <= 100);

        Path ratio = spec(f, "ratio.yaml", 20_000, "modulo", 4, "rejects: { table: orders_rejects, max-ratio: "
                + "0.001 }");
        CliRun byRatio = CliRun.of("run", ratio.toString(), "--run-id", "ratio");
        assertEquals(1, byRatio.exitCode(), byRatio.all());
        assertTrue(byRatio.all().contains("RUN060") && byRatio.all().contains("more than max-ratio 0.001"),
                byRatio.all());
        consistentWithLedger(f, "ratio");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'ratio'"),
                "0.8% is over 0.1% in every partition: none committed");

        Path enough = spec(f, "enough.yaml", 20_000, "modulo", 4, "rejects: { table: orders_rejects, max-rows: "
                + "160, max-ratio: 0.008 }");
        CliRun within = CliRun.of("run", enough.toString(), "--run-id", "enough");
        assertEquals(0, within.exitCode(), within.all());
        assertEquals(160, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'enough'"));
    }

    @Test
    void aForeignKeyCheckedAtTheEndOfTheCopyIsFoundByHalvingTheRows() throws Exception {
        // A foreign key is checked when the COPY ends, so its error names no line: the rows are split in halves
        // until the refused ones are alone.
        LedgerFixture f = fixture("rj4");
        f.sql(f.target, "CREATE TABLE customers (id integer PRIMARY KEY)",
                "INSERT INTO customers SELECT g FROM generate_series(0, 49) g",
                "ALTER TABLE orders ADD CONSTRAINT orders_customer FOREIGN KEY (qty) REFERENCES customers (id)",
                "ALTER TABLE orders DROP CONSTRAINT orders_qty_check");
        int rows = 50_000;
        Path spec = spec(f, "fk.yaml", rows, "modulo", 2, "rejects: { table: orders_rejects }");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "fk");
        assertEquals(0, run.exitCode(), run.all());
        // qty -1 (one row in 1,000) now breaks the foreign key instead of the check
        assertEquals(rows / 1000, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'fk' AND "
                + "error_code = '23503' AND row_data->>'qty' = '-1' AND column_name = 'constraint orders_customer'"));
        assertEquals(rows, f.scalar(f.target, "SELECT count(*) FROM orders") + f.scalar(f.target, "SELECT count(*) "
                + "FROM orders_rejects WHERE run_id = 'fk'"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM customers c "
                + "WHERE c.id = o.qty)"));
        consistentWithLedger(f, "fk");
    }

    @Test
    void aMergeSetsEveryRowOfADuplicatedKeyAsideWithOnDuplicateReject() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "rj5", 1000);
        f.sql(f.source, "INSERT INTO items SELECT g, 'again ' || g, 1 FROM generate_series(1, 1000, 100) g");
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)", "INSERT INTO items VALUES (1, 'kept', 9)");
        Path spec = LoadModesTest.spec(dir, "dup.yaml", "items", "{ connection: dst, table: items }", f,
                "load-mode: merge", "on-duplicate: reject", "rejects: { table: items_rejects }",
                "distribution: { method: range, key: id }", "degree: 2", "batch-size: 300");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "dup");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(20, f.scalar(f.target, "SELECT count(*) FROM items_rejects WHERE run_id = 'dup' AND "
                + "error_code = 'PG217' AND column_name = 'merge-key (id)' AND (row_data->>'id')::int % 100 = 1"),
                "both rows of each of the ten keys");
        assertEquals(991, f.scalar(f.target, "SELECT count(*) FROM items"), "990 keys loaded, and row 1 kept");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items WHERE id = 1 AND name = 'kept'"),
                "a key set aside leaves the target's row as it was");
        assertTrue(run.all().contains("20 rows set aside in items_rejects"), run.all());
    }

    /** Every partition the ledger has done has exactly its rows set aside in the rejects table, no more. */
    private static void consistentWithLedger(LedgerFixture f, String runId) throws SQLException {
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM (SELECT p.partition_id, p.rows_rejected, "
                + "count(r.*) AS n FROM sluice.run_partitions p LEFT JOIN orders_rejects r ON r.run_id = "
                + "p.run_id AND r.partition_id = p.partition_id WHERE p.run_id = '" + runId + "' GROUP BY 1, 2 "
                + "HAVING p.rows_rejected <> count(r.*)) x"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM orders_rejects r WHERE run_id = '" + runId + "' "
                + "AND NOT EXISTS (SELECT 1 FROM sluice.run_partitions p WHERE p.run_id = r.run_id AND "
                + "p.partition_id = r.partition_id AND p.state = 'done')"), "rejects only of done partitions");
    }

    /**
     * The target holds every good row once (the load mode truncates), and the run's rejects every bad row once with
     * its reason: together they are the feed, each id once.
     */
    private static void assertExact(LedgerFixture f, String runId, int rows) throws SQLException {
        f.sql(f.target, "ANALYZE orders, orders_rejects"); // a plan from stale counts would join row by row
        assertEquals(rows - bad(rows), f.scalar(f.target, "SELECT count(*) FROM orders"));
        Map<String, Long> kinds = new TreeMap<>();
        try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT error_code, count(*) FROM orders_rejects WHERE run_id = '"
                     + runId + "' GROUP BY 1")) {
            while (rs.next()) {
                kinds.put(rs.getString(1), rs.getLong(2));
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        PER_THOUSAND.forEach((code, n) -> expected.put(code, n * rows / 1000));
        assertEquals(expected, kinds);
        assertEquals(rows, f.scalar(f.target, "SELECT count(DISTINCT id) FROM (SELECT id FROM orders UNION ALL "
                + "SELECT (row_data->>'id')::bigint FROM orders_rejects WHERE run_id = '" + runId + "') x"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM orders_rejects r WHERE r.run_id = '" + runId
                + "' AND EXISTS (SELECT 1 FROM orders o WHERE o.id = (r.row_data->>'id')::bigint)"),
                "no row both loaded and set aside");
        consistentWithLedger(f, runId);
    }

    /** Bad rows in a feed of {@code rows} (a multiple of 1,000). */
    private static long bad(int rows) {
        return PER_THOUSAND.values().stream().mapToLong(n -> n * rows / 1000).sum();
    }

    private LedgerFixture fixture(String prefix) throws SQLException {
        LedgerFixture f = new LedgerFixture(dir, prefix, 0);
        f.sql(f.target, "CREATE TABLE orders (id bigint PRIMARY KEY, name varchar(10), amount numeric(6,2), "
                        + "code text UNIQUE, qty integer NOT NULL CHECK (qty >= 0), d date)",
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = 'trig' THEN "
                        + "RAISE EXCEPTION 'refused by trigger'; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER refuse BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION refuse()");
        return f;
    }

    /** A DuckDB query making {@code rows} orders, eight kinds of bad row in every thousand. */
    private Path spec(LedgerFixture f, String file, int rows, String method, int degree, String... extra)
            throws Exception {
        String query = "select i::bigint as id, case i % 1000 when 1 then 'much too long name' when 3 then 'a' || "
                + "chr(0) || 'b' when 7 then 'trig' else 'n' || (i % 100000) end as name, (case i % 1000 when 2 "
                + "then 12345678.9 else (i % 9999) / 100.0 end)::decimal(12,2) as amount, (case i % 1000 when 6 "
                + "then i + 4 else i end)::varchar as code, case i % 1000 when 4 then null when 5 then -1 else i % 50 "
                + "end as qty, case i % 1000 when 8 then date '5881000-01-01' else date '2020-01-01' + (i % 1000)::int "
                + "end as d from range(1, " + (rows + 1) + ") t(i)";
        return f.ordersSpec(file, query, method, degree, extra);
    }
}
