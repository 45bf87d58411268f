package io.sluice.app.compare;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sluice compare} on real PostgreSQL: equal after a run (exit 0); planted differences (a changed value, a
 * missing row, an extra row) found and named by key (exit 5), per partition and against a whole target; what the
 * spec makes of the source (renames, exclusions, masks, expressions, a filter) compared, not the raw source; keys of
 * several text columns; a table without a key compared as a multiset.
 */
class CompareTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    @Test
    void equalAfterARunThenEachPlantedDifferenceIsNamedByItsKey() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "cmpplain", 1);
        f.sql(f.source, "CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(12,2), note text, at timestamptz)",
                "INSERT INTO orders SELECT g, g * 1.5, 'n ' || g, timestamptz '2026-01-01' + g * interval '1 minute' "
                        + "FROM generate_series(1, 20000) g", "ANALYZE orders");
        Path spec = spec(f, "cmp-plain", "orders", "orders", "", "distribution: { method: range, key: id }",
                "batch-size: 5000", "target: { connection: dst, table: orders, create: if-missing }");
        run(spec);
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        assertTrue(equal.out().contains("result:      equal"), equal.out());

        f.sql(f.target, "UPDATE orders SET note = 'edited by hand' WHERE id = 4321",
                "DELETE FROM orders WHERE id = 17000", "INSERT INTO orders VALUES (-5, 1, 'not in the source', NULL)");
        JsonNode stream = CompareJson.firstStream(spec, 5);
        assertEquals(20_000, stream.get("sourceRows").asLong());
        assertEquals(20_000, stream.get("targetRows").asLong());
        assertEquals(List.of("changed id=4321 [note]", "extra id=-5 []", "missing id=17000 []"), CompareJson.listed(stream));
        assertTrue(stream.get("compared").asString().contains("2 listed row by row"), stream.toString());

        // One partition of 20,000 rows: its rows are digested by bucket first, and only the differing buckets listed.
        Path whole = spec(f, "cmp-plain-one", "orders", "orders", "", "distribution: { method: range, key: id }",
                "batch-size: 100000", "target: { connection: dst, table: orders }");
        JsonNode bucketed = CompareJson.firstStream(whole, 5);
        assertEquals(List.of("changed id=4321 [note]", "extra id=-5 []", "missing id=17000 []"), CompareJson.listed(bucketed));
        assertTrue(bucketed.get("compared").asString().contains("(1 by bucket)"), bucketed.toString());

        // --max-differences caps the list, not the count.
        CliRun capped = CliRun.of("compare", spec.toString(), "--format", "json", "--max-differences", "1");
        assertEquals(5, capped.exitCode(), capped.all());
        JsonNode first = JSON.readTree(capped.out()).get("streams").get(0);
        assertEquals(3, first.get("differenceCount").asLong());
        assertEquals(1, first.get("differences").size());
    }

    @Test
    void comparesWhatTheSpecMakesOfTheSourceRenamesMasksExpressionsAndAFilter() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "cmpshaped", 1);
        f.sql(f.source, "CREATE TABLE people (id int PRIMARY KEY, email text, phone text, secret text, cents bigint, "
                + "region text)", "INSERT INTO people SELECT g, 'User' || g || '@Example.com', '555-' || g, 's' || g, "
                + "g * 100, CASE WHEN g % 3 = 0 THEN 'eu' ELSE 'us' END FROM generate_series(1, 3000) g");
        f.sql(f.target, "CREATE TABLE contacts (id bigint PRIMARY KEY, mail text, phone text, amount numeric(12,2), "
                + "region text)");
        Path spec = spec(f, "cmp-shaped", "people", "contacts", ", where: \"region = 'us'\"",
                "distribution: { method: range, key: id }", "batch-size: 1000", "columns:",
                "  email: { rename: mail, expression: \"lower(email)\" }", "  phone: { mask: redact }",
                "  secret: { exclude: true }",
                "  cents: { rename: amount, expression: \"cents / 100.0\", type: \"numeric(12,2)\" }");
        run(spec);
        assertEquals(0, CliRun.of("compare", spec.toString()).exitCode());

        // The target as the spec made it: lower-case mail, a redacted phone, amount in units; a row the filter
        // leaves out is extra, a copied value changed is named by its target column.
        f.sql(f.target, "UPDATE contacts SET amount = amount + 1 WHERE id = 10",
                "INSERT INTO contacts VALUES (3, 'user3@example.com', '*****', 3, 'eu')");
        JsonNode stream = CompareJson.firstStream(spec, 5);
        assertEquals(List.of("changed id=10 [amount]", "extra id=3 []"), CompareJson.listed(stream));
        assertEquals(2_000, stream.get("sourceRows").asLong(), "the filter's rows");
    }

    @Test
    void aKeyOfSeveralTextColumnsAndATableWithoutAKey() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "cmpkeys", 1);
        f.sql(f.source, "CREATE TABLE pairs (country text, code text, label text, PRIMARY KEY (country, code))",
                "INSERT INTO pairs SELECT 'c' || (g % 7), 'Ä' || g, 'l ' || g FROM generate_series(1, 700) g",
                "CREATE TABLE readings (sensor int, value float8)",
                "INSERT INTO readings SELECT g % 5, g / 4.0 FROM generate_series(1, 500) g",
                "INSERT INTO readings VALUES (1, 0.5), (1, 0.5)");
        Path pairs = spec(f, "cmp-pairs", "pairs", "pairs", "", "target: { connection: dst, table: pairs, create: "
                + "if-missing }");
        run(pairs);
        Path readings = spec(f, "cmp-readings", "readings", "readings", "",
                "target: { connection: dst, table: readings, create: if-missing }");
        run(readings);
        assertEquals(0, CliRun.of("compare", pairs.toString()).exitCode());
        assertEquals(0, CliRun.of("compare", readings.toString()).exitCode());

        f.sql(f.target, "UPDATE pairs SET label = 'changed' WHERE country = 'c3' AND code = 'Ä10'",
                "DELETE FROM pairs WHERE country = 'c0' AND code = 'Ä7'");
        assertEquals(List.of("changed country=c3, code=Ä10 [label]", "missing country=c0, code=Ä7 []"),
                CompareJson.listed(CompareJson.firstStream(pairs, 5)));

        // Without a key: rows are counted by their whole value; one of three equal rows gone is one missing row.
        f.sql(f.target, "DELETE FROM readings WHERE ctid = (SELECT min(ctid) FROM readings WHERE sensor = 1 AND "
                + "value = 0.5)", "INSERT INTO readings VALUES (9, 9.25)");
        assertEquals(List.of("extra row=(9,9.25) []", "missing row=(1,0.5) []"), CompareJson.listed(CompareJson.firstStream(readings, 5)));
    }

    @Test
    void writesDuringTheCompareShowNoPhantomDifferences() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "cmpbusy", 1);
        // The note column goes through a function that waits while the test holds an advisory lock: the compare
        // then stands inside its source snapshot while the test changes the source.
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, note text)",
                "INSERT INTO events SELECT g, 'n ' || g FROM generate_series(1, 5000) g", "ANALYZE events",
                "CREATE FUNCTION gate(t text) RETURNS text LANGUAGE plpgsql AS "
                        + "$$ BEGIN PERFORM pg_advisory_lock_shared(4242); PERFORM pg_advisory_unlock_shared(4242); "
                        + "RETURN t; END $$");
        f.sql(f.target, "CREATE TABLE events (id bigint PRIMARY KEY, note text)");
        Path spec = spec(f, "cmp-busy", "events", "events", "", "distribution: { method: range, key: id }",
                "batch-size: 1000", "columns:",
                "  note: { expression: \"gate(note)\" }");
        run(spec);
        // One real difference, planted before the compare: the partition it is in gets listed row by row, after
        // the digests, and the target is written meanwhile in that partition too.
        f.sql(f.target, "UPDATE events SET note = 'planted' WHERE id = 30");
        try (java.sql.Connection gate = f.pg.connect(f.source); java.sql.Statement s = gate.createStatement()) {
            s.execute("SELECT pg_advisory_lock(4242)");
            Path log = dir.resolve("busy.log");
            Process compare = LedgerFixture.startSluice(log, "compare", spec.toString());
            LedgerFixture.waitUntil(compare, log, () -> f.scalar(f.source, "SELECT count(*) FROM pg_locks WHERE "
                    + "locktype = 'advisory' AND NOT granted") > 0);
            f.sql(f.source, "INSERT INTO events VALUES (5001, 'during')", "UPDATE events SET note = 'x' WHERE id = 10",
                    "DELETE FROM events WHERE id = 20");
            f.sql(f.target, "UPDATE events SET note = 'during' WHERE id = 31", "DELETE FROM events WHERE id = 32");
            s.execute("SELECT pg_advisory_unlock(4242)");
            assertTrue(compare.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
            String out = Files.readString(log);
            assertEquals(5, compare.exitValue(), out);
            assertTrue(out.contains("changed id=30") && out.contains("1 row(s) differ"),
                    "only the difference there was when it began, both sides as of one moment:\n" + out);
        }
        assertEquals(List.of("changed id=10 [note]", "changed id=30 [note]", "changed id=31 [note]", "extra id=20 []",
                "missing id=32 []", "missing id=5001 []"), CompareJson.listed(CompareJson.firstStream(spec, 5)),
                "the next compare sees the changes");
        f.sql(f.target, "UPDATE events SET note = 'n 30' WHERE id = 30");

        // SIGTERM while it waits: it ends at once with 130, and its statements end with its connections.
        try (java.sql.Connection gate = f.pg.connect(f.source); java.sql.Statement s = gate.createStatement()) {
            s.execute("SELECT pg_advisory_lock(4242)");
            Path log = dir.resolve("term.log");
            Process compare = LedgerFixture.startSluice(log, "compare", spec.toString());
            LedgerFixture.waitUntil(compare, log, () -> f.scalar(f.source, "SELECT count(*) FROM pg_locks WHERE "
                    + "locktype = 'advisory' AND NOT granted") > 0);
            compare.destroy();
            assertTrue(compare.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "ended promptly");
            String out = Files.readString(log);
            assertEquals(130, compare.exitValue(), out);
            assertTrue(out.contains("compare interrupted; nothing was written"), out);
        }
    }

    @Test
    void aStreamTheSpecDoesNotHaveIsRefused() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "cmpnone", 1);
        f.sql(f.source, "CREATE TABLE t (id int PRIMARY KEY)");
        f.sql(f.target, "CREATE TABLE t (id int PRIMARY KEY)");
        Path spec = spec(f, "cmp-none", "t", "t", "");
        CliRun run = CliRun.of("compare", spec.toString(), "--stream", "nope");
        assertEquals(3, run.exitCode(), run.all());
        assertTrue(run.err().contains("COMPARE002") && run.err().contains("name one of: t"), run.all());

        // A target table the run would create but never did: said so, with the fix, not as a server error.
        Path unloaded = spec(f, "cmp-unloaded", "t", "not_loaded", "",
                "target: { connection: dst, table: not_loaded, create: if-missing }");
        CliRun missing = CliRun.of("compare", unloaded.toString());
        assertEquals(4, missing.exitCode(), missing.all());
        assertTrue(missing.err().contains("the target table \"not_loaded\" does not exist")
                && missing.err().contains("load the stream first (sluice run)"), missing.all());
    }

    private static void run(Path spec) {
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
    }

    private Path spec(LedgerFixture f, String name, String sourceTable, String targetTable, String sourceExtra,
                      String... extra) throws Exception {
        Path spec = dir.resolve(name + ".yaml");
        boolean ownTarget = java.util.Arrays.stream(extra).anyMatch(l -> l.startsWith("target:"));
        Files.writeString(spec, """
                version: 1
                name: %s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: src, table: %s%s }
                """.formatted(name, f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user(),
                sourceTable, sourceTable, sourceExtra)
                + (ownTarget ? "" : "    target: { connection: dst, table: " + targetTable + " }\n")
                + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }
}
