package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code schema-changes} on real PostgreSQL and DuckDB sources: runs with the source changing between them (columns
 * added, dropped, widened, narrowed, changed to an unrelated type) under each policy, with truncate, merge, replace and
 * a pattern of tables, and a SIGKILL after the change followed by {@code --resume} and by a fresh run.
 */
class SchemaChangesTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    @Test
    void failListsEveryNewColumnWithTheStatementThatAddsItAndWritesNothing() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shfail", 100);
        f.sql(f.target, "INSERT INTO items VALUES (0, 'kept', 1)");
        Path spec = f.spec("fail.yaml", "none", 1, 1000);
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());

        f.sql(f.source, "ALTER TABLE items ADD COLUMN qty integer, ADD COLUMN note varchar(20)");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.all().contains("MAP001") && run.all().contains("source columns \"qty\", \"note\" have no "
                + "target column"), run.all());
        assertTrue(run.all().contains("ALTER TABLE \"public\".\"items\" ADD COLUMN \"qty\" integer; ALTER TABLE "
                + "\"public\".\"items\" ADD COLUMN \"note\" character varying(20)"), run.all());
        assertTrue(run.all().contains("schema-changes: add-columns"), run.all());
        assertEquals(List.of("id bigint", "name text", "price numeric(10,2)"), columns(f, "items"));
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items"), "the last run's rows are still there");
    }

    @Test
    void addColumnsFollowsTheSourceAcrossThreeRunsAndSurvivesAKillWithResumeAndAFreshRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shadd", 200_000);
        Path spec = f.spec("add.yaml", "ctid", 2, 5000, "schema-changes: add-columns");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());

        // Run 2: two new columns (one of them NOT NULL in the source: added nullable) and a narrowed one.
        f.sql(f.source, "ALTER TABLE items ADD COLUMN qty integer NOT NULL DEFAULT 7, ADD COLUMN note text",
                "UPDATE items SET note = 'n' || id WHERE id % 3 = 0", "ALTER TABLE items ALTER COLUMN name TYPE "
                        + "varchar(20)");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("ALTER TABLE \"public\".\"items\" ADD COLUMN IF NOT EXISTS \"qty\" integer, "
                + "ADD COLUMN IF NOT EXISTS \"note\" text"), plan.out());
        assertEquals(List.of("id bigint", "name text", "price numeric(10,2)"), columns(f, "items"),
                "a plan changes nothing");

        // Killed after the change and some partitions: the resume ends where an unbroken run ends.
        f.killAfterDone(spec, "add-1", 3);
        assertEquals(List.of("id bigint", "name text", "price numeric(10,2)", "qty integer", "note text"),
                columns(f, "items"), "the change committed before the first partition");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "add-1", "--summary-json",
                dir.resolve("add-1.json").toString());
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(0, f.differences("items"));
        JsonNode summary = JSON.readTree(Files.readString(dir.resolve("add-1.json")));
        assertEquals(List.of(), strings(summary.get("streams").get(0).get("schema-changes")),
                "the resumed run planned against the changed table: nothing left to change");

        // A fresh run after another kill: the table is not changed twice, and it ends equal too.
        f.sql(f.source, "ALTER TABLE items ADD COLUMN seen boolean");
        f.killAfterDone(spec, "add-2", 2);
        CliRun fresh = CliRun.of("run", spec.toString(), "--summary-json", dir.resolve("fresh.json").toString());
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertEquals(0, f.differences("items"));
        assertEquals(6, columns(f, "items").size(), columns(f, "items").toString());

        // Run 3: a column dropped from the source is loaded as NULL; one added says so in the summary and report.
        f.sql(f.source, "ALTER TABLE items DROP COLUMN note", "ALTER TABLE items ADD COLUMN weight numeric(8,3)",
                "UPDATE items SET weight = id / 1000.0");
        Path report = dir.resolve("run3.html");
        CliRun third = CliRun.of("run", spec.toString(), "--run-id", "add-3", "--summary-json",
                dir.resolve("run3.json").toString(), "--report", report.toString());
        assertEquals(0, third.exitCode(), third.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items WHERE note IS NOT NULL"));
        assertEquals(200_000, f.scalar(f.target, "SELECT count(*) FROM items WHERE weight = id / 1000.0"));
        JsonNode changes = JSON.readTree(Files.readString(dir.resolve("run3.json"))).get("streams").get(0)
                .get("schema-changes");
        assertEquals(List.of("added column weight numeric(8,3) to public.items"), strings(changes));
        assertTrue(Files.readString(report).contains("added column weight numeric(8,3) to public.items"));
        assertTrue(third.all().contains("added column weight numeric(8,3) to public.items"), third.all());
        Path fromLedger = dir.resolve("status3.html");
        CliRun status = CliRun.of("status", spec.toString(), "add-3", "--report", fromLedger.toString());
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(Files.readString(fromLedger).contains("added column weight numeric(8,3) to public.items"),
                "the ledger keeps the change: the report read from it shows it");
    }

    @Test
    void widenWidensWhereNoValueIsLostAndRefusesAnUnrelatedTypeWithTheExactDifference() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shwiden", 0);
        String table = "CREATE TABLE m (id integer PRIMARY KEY, v integer, s varchar(5), n numeric(6,2), r real, "
                + "t text)";
        f.sql(f.source, table, "INSERT INTO m SELECT g, g, 's' || g, g / 4.0, g, 't' FROM generate_series(1, 500) g");
        f.sql(f.target, table);
        Path spec = LoadModesTest.spec(dir, "widen.yaml", "m", "{ connection: dst, table: m }", f,
                "load-mode: merge", "schema-changes: widen", "distribution: { method: range, key: id }", "degree: 2",
                "batch-size: 100");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());

        // Wider in the source: the target follows, and the values that need the room arrive whole.
        f.sql(f.source, "ALTER TABLE m ALTER COLUMN v TYPE bigint, ALTER COLUMN s TYPE varchar(40), "
                + "ALTER COLUMN n TYPE numeric(12,4), ALTER COLUMN r TYPE double precision",
                "INSERT INTO m VALUES (501, 9000000000, repeat('x', 40), 12345678.1234, 1.000000001, 't')");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("ALTER TABLE \"public\".\"m\" ALTER COLUMN \"v\" TYPE bigint, ALTER COLUMN "
                + "\"s\" TYPE character varying(40), ALTER COLUMN \"n\" TYPE numeric(12,4), ALTER COLUMN \"r\" TYPE "
                + "double precision"), plan.out());
        CliRun run = CliRun.of("run", spec.toString(), "--summary-json", dir.resolve("w.json").toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(List.of("id integer not null", "v bigint", "s character varying(40)", "n numeric(12,4)",
                "r double precision", "t text"), columns(f, "m"));
        assertEquals(0, f.differences("m"));
        assertTrue(strings(JSON.readTree(Files.readString(dir.resolve("w.json"))).get("streams").get(0)
                .get("schema-changes")).contains("widened column v of public.m from integer to bigint"));

        // Narrower in the source: it fits, nothing changes.
        f.sql(f.source, "UPDATE m SET s = left(s, 3)", "ALTER TABLE m ALTER COLUMN s TYPE varchar(3)");
        CliRun narrowed = CliRun.of("run", spec.toString(), "--summary-json", dir.resolve("n.json").toString());
        assertEquals(0, narrowed.exitCode(), narrowed.all());
        assertEquals("s character varying(40)", columns(f, "m").get(2));
        assertEquals(List.of(), strings(JSON.readTree(Files.readString(dir.resolve("n.json"))).get("streams").get(0)
                .get("schema-changes")));

        // Unrelated: no widening of integer holds numeric fractions, or of numeric text. Refused, every one, nothing
        // written.
        f.sql(f.target, "ALTER TABLE m ALTER COLUMN v TYPE integer USING 0");
        f.sql(f.source, "ALTER TABLE m ALTER COLUMN v TYPE numeric(20,2)", "ALTER TABLE m ALTER COLUMN n TYPE text");
        long before = f.scalar(f.target, "SELECT sum(hashtext(m::text)) FROM m");
        CliRun refused = CliRun.of("run", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("PG225") && refused.all().contains("source column \"v\" is numeric(20,2) "
                + "and target column \"v\" is integer") && refused.all().contains("source column \"n\" is text and "
                + "target column \"n\" is numeric(12,4)"), refused.all());
        assertEquals(before, f.scalar(f.target, "SELECT sum(hashtext(m::text)) FROM m"));
        assertEquals("v integer", columns(f, "m").get(1));
    }

    @Test
    void ignoreNewLeavesNewColumnsUnreadAndAGoneColumnTakesNullOrIsRefusedWhenItCannot() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shign", 1000);
        Path spec = f.spec("ignore.yaml", "none", 1, 1000, "schema-changes: ignore-new");
        f.sql(f.source, "ALTER TABLE items ADD COLUMN secret text DEFAULT 'do not copy'");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("source column \"secret\" (text) is not read"), plan.out());
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(List.of("id bigint", "name text", "price numeric(10,2)"), columns(f, "items"));
        assertEquals(f.scalar(f.source, "SELECT sum(hashtext(id || name || price)) FROM items"),
                f.scalar(f.target, "SELECT sum(hashtext(id || name || price)) FROM items"));

        // Gone from the source: NULL where the target column takes it; a NOT NULL one without default is refused.
        f.sql(f.source, "ALTER TABLE items DROP COLUMN price");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM items WHERE price IS NULL"));
        f.sql(f.target, "UPDATE items SET price = 0", "ALTER TABLE items ALTER COLUMN price SET NOT NULL");
        CliRun refused = CliRun.of("run", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("PG225") && refused.all().contains("target column \"price\" is NOT NULL "
                + "without a default, and the source has no column of that name"), refused.all());
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM items WHERE price = 0"), "nothing was written");
    }

    @Test
    void aReplaceGivesTheNewShapeToItsShadowAndAPatternDecidesEachTableOnItsOwn() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shpat", 0);
        for (String t : List.of("a", "b")) {
            f.sql(f.source, "CREATE TABLE " + t + " (id bigint, v text)", "INSERT INTO " + t + " SELECT g, 'v' || g "
                    + "FROM generate_series(1, 300) g");
            f.sql(f.target, "CREATE TABLE " + t + " (id bigint, v text)");
        }
        f.sql(f.source, "ALTER TABLE a ADD COLUMN extra date DEFAULT date '2026-11-28'");
        Path spec = dir.resolve("pattern.yaml");
        Files.writeString(spec, """
                version: 1
                name: pattern
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: tables
                    source: { connection: src, table: "public.?" }
                    target: { connection: dst, table: "public.{table}" }
                    load-mode: replace
                    schema-changes: add-columns
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("ALTER TABLE \"public\".\"a_sluice_shadow\" ADD COLUMN IF NOT EXISTS "
                + "\"extra\" date"), plan.out());
        assertFalse(plan.out().contains("ALTER TABLE \"public\".\"b_sluice_shadow\" ADD"), plan.out());
        CliRun run = CliRun.of("run", spec.toString(), "--summary-json", dir.resolve("p.json").toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(List.of("id bigint", "v text", "extra date"), columns(f, "a"));
        assertEquals(List.of("id bigint", "v text"), columns(f, "b"));
        assertEquals(0, f.differences("a"));
        assertEquals(0, f.differences("b"));
        List<String> changes = new ArrayList<>();
        JSON.readTree(Files.readString(dir.resolve("p.json"))).get("streams")
                .forEach(s -> changes.addAll(strings(s.get("schema-changes"))));
        assertEquals(List.of("added column extra date to public.a"), changes);
    }

    @Test
    void aFileSourceThatGainsAColumnIsFollowed() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shfile", 0);
        f.sql(f.target, "CREATE TABLE events (id bigint, kind text)");
        Path csv = dir.resolve("events.csv");
        Files.writeString(csv, "id,kind\n1,a\n2,b\n");
        Path spec = f.csvSpec("files.yaml", "events", csv, "events", "schema-changes: add-columns");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        Files.writeString(csv, "id,kind,amount\n1,a,1.5\n2,b,2.25\n3,c,\n");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(List.of("id bigint", "kind text", "amount double precision"), columns(f, "events"));
        assertEquals(375, f.scalar(f.target, "SELECT sum(amount * 100) FROM events"));
        assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM events"));
    }

    @Test
    void aDuckDbSourceChangingThreeTimesIsFollowedAsEachPolicySays() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shduck", 0);
        for (String policy : List.of("fail", "add-columns", "widen", "ignore-new")) {
            Path database = dir.resolve(policy + ".duckdb");
            duck(database, "CREATE TABLE t (id INTEGER, kind VARCHAR)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            String table = "t_" + policy.replace('-', '_');
            Path spec = dir.resolve(policy + ".yaml");
            Files.writeString(spec, """
                    version: 1
                    name: duck-%s
                    connections:
                      lake: { type: duckdb, database: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: t
                        source: { connection: lake, query: "select * from t" }
                        target: { connection: dst, table: %s, create: if-missing }
                        load-mode: truncate
                        schema-changes: %s
                    """.formatted(policy, database.toString().replace("\\", "/"), f.pg.jdbcUrl(f.target), f.pg.user(),
                    table, policy));
            assertEquals(0, CliRun.of("run", spec.toString()).exitCode(), policy);

            // 1: a column added.
            duck(database, "ALTER TABLE t ADD COLUMN amount DECIMAL(10,2)", "UPDATE t SET amount = id * 1.5");
            CliRun added = CliRun.of("run", spec.toString());
            // 2: a column widened past what the target holds.
            duck(database, "ALTER TABLE t ALTER COLUMN id TYPE BIGINT", "INSERT INTO t VALUES (3000000000, 'c', 1)");
            CliRun widened = CliRun.of("run", spec.toString());
            // 3: a column dropped.
            duck(database, "ALTER TABLE t DROP COLUMN kind");
            CliRun dropped = CliRun.of("run", spec.toString());
            switch (policy) {
                case "fail" -> {
                    assertEquals(4, added.exitCode(), added.all());
                    assertTrue(added.all().contains("source column \"amount\" has no target column"), added.all());
                    assertEquals(List.of("id integer", "kind text"), columns(f, table));
                    assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM " + table), "the first run's rows");
                }
                case "add-columns", "ignore-new" -> {
                    assertEquals(0, added.exitCode(), added.all());
                    // Types are as today: the value does not fit, the partition fails with the exact value.
                    assertEquals(1, widened.exitCode(), widened.all());
                    assertTrue(widened.all().contains("3000000000"), widened.all());
                    assertEquals(1, dropped.exitCode(), "the wide value is still there\n" + dropped.all());
                    assertEquals(policy.equals("add-columns") ? List.of("id integer", "kind text",
                            "amount numeric(10,2)") : List.of("id integer", "kind text"), columns(f, table));
                }
                default -> {
                    assertEquals(0, added.exitCode(), added.all());
                    assertEquals(0, widened.exitCode(), widened.all());
                    assertEquals(0, dropped.exitCode(), dropped.all());
                    assertEquals(List.of("id bigint", "kind text", "amount numeric(10,2)"), columns(f, table));
                    assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM " + table + " WHERE kind IS NULL"),
                            "the dropped column loads as NULL");
                    assertEquals(3000000000L, f.scalar(f.target, "SELECT max(id) FROM " + table));
                }
            }
        }
    }

    private static void duck(Path database, String... statements) throws SQLException {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:" + database);
             java.sql.Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static List<String> columns(LedgerFixture f, String table) throws SQLException {
        return f.columns(f.target, table);
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asString()));
        return values;
    }
}
