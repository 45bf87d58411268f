package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code columns:} rules and {@code where:} on real PostgreSQL and DuckDB sources: columns left out, renamed,
 * computed, typed and masked by the source (so the masked values never leave it), a filter kept by every partition
 * of every method and by a resume, rules on a pattern of tables, and bad rules refused with nothing written.
 */
class ShapedColumnsTest {
    private static final String KEY = "k3y-for-the-hash-0123456789abcdef";

    @TempDir
    Path dir;

    @Test
    void rulesShapeTheColumnsOnTheSourceAndWhereKeepsToItsRowsWithEveryMethod() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shape", 0);
        f.sql(f.source, "CREATE TABLE people (id bigint PRIMARY KEY, email text, phone varchar(20), ssn text, "
                        + "notes text, amount_cents bigint, vip boolean, status text)",
                "INSERT INTO people SELECT g, 'User' || g || '@Example.COM', '+41 79 ' || g, 'ssn-' || (g % 50), "
                        + "'private ' || g, g * 7, g % 2 = 0, CASE WHEN g % 10 = 0 THEN 'test' ELSE 'live' END "
                        + "FROM generate_series(1, 20000) g", "ANALYZE people");
        Files.writeString(dir.resolve("mask.key"), KEY + "\n");
        for (String method : List.of("ctid", "range", "ntile", "modulo")) {
            String key = method.equals("ctid") ? "" : ", key: id";
            Path spec = LoadModesTest.spec(dir, "shape-" + method + ".yaml", "people", "{ connection: dst, table: "
                            + "people_" + method + ", create: if-missing }", f, "load-mode: truncate",
                    "distribution: { method: " + method + key + " }", "degree: 3", "batch-size: 2000",
                    "mask-key: ${file:mask.key}", "columns:",
                    "  notes: { exclude: true }",
                    "  email: { expression: \"lower(email)\" }",
                    "  amount_cents: { rename: amount, expression: \"amount_cents / 100.0\", type: \"numeric(12,2)\" }",
                    "  phone: { mask: redact }",
                    "  ssn: { mask: hash }",
                    "  vip: { mask: \"null\" }");
            Files.writeString(spec, Files.readString(spec).replace("table: people }",
                    "table: people, where: \"status <> 'test'\" }"));
            CliRun plan = CliRun.of("plan", spec.toString());
            assertEquals(0, plan.exitCode(), plan.all());
            assertFalse(plan.all().contains(KEY), "the mask key never shows: " + plan.all());
            // Nor is it in the SQL the source server gets (and logs with a statement that fails): a setting is.
            assertTrue(plan.out().contains("current_setting('sluice.mask_key_1')"), plan.out());
            CliRun run = CliRun.of("run", spec.toString());
            assertEquals(0, run.exitCode(), method + "\n" + run.all());
            assertFalse(run.all().contains(KEY), run.all());
            String table = "people_" + method;
            assertEquals(List.of("id bigint not null", "email text", "phone text", "ssn text", "amount numeric(12,2)",
                    "vip boolean", "status text"), columns(f, table), method);
            assertEquals(18000, f.scalar(f.target, "SELECT count(*) FROM " + table), method);
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM " + table + " WHERE status = 'test' "
                    + "OR email <> lower(email) OR phone !~ '^\\*+$' OR vip IS NOT NULL OR ssn !~ '^[0-9a-f]{64}$' "
                    + "OR amount * 100 <> id * 7"), method);
            assertEquals(45, f.scalar(f.target, "SELECT count(DISTINCT ssn) FROM " + table),
                    "one hash per value (45 values outside the test rows): equal values stay joinable");
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM " + table + " WHERE ssn LIKE 'ssn-%'"));
        }
        // Same value, same key: the same hash on every run and from either source (DuckDB below).
        String hash = text(f, "SELECT ssn FROM people_range WHERE id = 1");
        assertEquals(hash, text(f, "SELECT ssn FROM people_modulo WHERE id = 1"));
        assertTrue(ledgerText(f).stream().noneMatch(t -> t.contains(KEY)), "the ledger keeps no key");

        Path csv = dir.resolve("people.csv");
        Files.writeString(csv, "id,ssn\n1,ssn-1\n");
        f.sql(f.target, "CREATE TABLE people_file (id bigint, ssn text)");
        Path fileSpec = f.csvSpec("file.yaml", "people", csv, "people_file", "mask-key: ${file:mask.key}",
                "columns:", "  ssn: { mask: hash }");
        CliRun file = CliRun.of("run", fileSpec.toString());
        assertEquals(0, file.exitCode(), file.all());
        assertEquals(hash, text(f, "SELECT ssn FROM people_file WHERE id = 1"),
                "DuckDB hashes as PostgreSQL does");
    }

    @Test
    void aWhereIsPartOfTheStreamAndAResumeKeepsIt() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "whereres", 200_000);
        Path spec = f.spec("where.yaml", "ctid", 2, 5000);
        Files.writeString(spec, Files.readString(spec).replace("source: { connection: src, table: items }",
                "source: { connection: src, table: items, where: \"id % 3 <> 0\" }"));
        f.killAfterDone(spec, "w-1", 3);
        Path changed = dir.resolve("where-changed.yaml");
        Files.writeString(changed, Files.readString(spec).replace("id % 3 <> 0", "id % 4 <> 0"));
        CliRun refused = CliRun.of("run", changed.toString(), "--resume", "w-1");
        assertTrue(refused.exitCode() != 0 && refused.all().contains("source.where"), refused.all());
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "w-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(133_334, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items WHERE id % 3 = 0"));
        assertEquals(133_334, f.scalar(f.target, "SELECT count(DISTINCT id) FROM items"));
    }

    @Test
    void whereKeepsToItsRowsOnEveryTableOfAPatternAndAcrossIncrementalRuns() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "wherepat", 0);
        for (String t : List.of("t1", "t2")) {
            f.sql(f.source, "CREATE TABLE " + t + " (id bigint PRIMARY KEY, kind text)", "INSERT INTO " + t
                    + " SELECT g, CASE WHEN g % 4 = 0 THEN 'test' ELSE 'real' END FROM generate_series(1, 1000) g");
            f.sql(f.target, "CREATE TABLE " + t + " (id bigint PRIMARY KEY, kind text)");
        }
        Path spec = dir.resolve("where-pattern.yaml");
        Files.writeString(spec, """
                version: 1
                name: where-pattern
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: tables
                    source: { connection: src, table: "public.t?", where: "kind <> 'test'" }
                    target: { connection: dst, table: "public.{table}" }
                    distribution: { method: range, key: primary-key }
                    degree: 2
                    batch-size: 100
                    incremental: { cursor: id }
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun first = CliRun.of("run", spec.toString());
        assertEquals(0, first.exitCode(), first.all());
        f.sql(f.source, "INSERT INTO t1 SELECT g, CASE WHEN g % 4 = 0 THEN 'test' ELSE 'real' END "
                + "FROM generate_series(1001, 1200) g");
        CliRun second = CliRun.of("run", spec.toString());
        assertEquals(0, second.exitCode(), second.all());
        assertEquals(900, f.scalar(f.target, "SELECT count(*) FROM t1"), "750 then 150 more, never a test row");
        assertEquals(750, f.scalar(f.target, "SELECT count(*) FROM t2"));
        assertEquals(0, f.scalar(f.target, "SELECT (SELECT count(*) FROM t1 WHERE kind = 'test') + (SELECT count(*) "
                + "FROM t2 WHERE kind = 'test')"));
    }

    @Test
    void rulesOnAPatternApplyToTheTablesThatHaveTheColumn() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shpattern", 0);
        f.sql(f.source, "CREATE SCHEMA crm", "CREATE TABLE crm.a (id bigint, email text, note text)",
                "CREATE TABLE crm.b (id bigint, note text)", "INSERT INTO crm.a SELECT g, 'A' || g, 'n' FROM "
                        + "generate_series(1, 100) g", "INSERT INTO crm.b SELECT g, 'n' FROM generate_series(1, 50) g");
        f.sql(f.target, "CREATE SCHEMA crm");
        Path spec = dir.resolve("pattern.yaml");
        Files.writeString(spec, """
                version: 1
                name: pattern
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: crm
                    source: { connection: src, table: "crm.*" }
                    target: { connection: dst, table: "crm.{table}", create: if-missing }
                    columns:
                      email: { mask: redact }
                      note: { exclude: true }
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(List.of("id bigint", "email text"), columns(f, "crm.a"));
        assertEquals(List.of("id bigint"), columns(f, "crm.b"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM crm.a WHERE email !~ '^\\*+$'"));
        assertEquals(50, f.scalar(f.target, "SELECT count(*) FROM crm.b"));
    }

    @Test
    void badRulesAreRefusedWithWhereAndWhyAndNothingIsWritten() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "shbad", 10);
        String[][] cases = {
                {"columns:\n      nmae: { exclude: true }", "MAP005", "does not have: nmae"},
                {"columns:\n      price: { mask: redact }", "MAP005", "price, which is numeric(10,2), not text"},
                {"columns:\n      name: { expression: \"lower(nme)\" }", "PG316", "column \"nme\" does not exist"},
                {"columns:\n      name: { rename: title }", "MAP001", "\"title\""},
        };
        for (String[] c : cases) {
            Path spec = f.spec("bad.yaml", "none", 1, 1000, c[0]);
            CliRun run = CliRun.of("run", spec.toString());
            assertTrue(run.exitCode() != 0 && run.all().contains(c[1]) && run.all().contains(c[2]), run.all());
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing written: " + c[0]);
        }
        Path where = f.spec("badwhere.yaml", "none", 1, 1000);
        Files.writeString(where, Files.readString(where).replace("source: { connection: src, table: items }",
                "source: { connection: src, table: items, where: \"pricey > 3\" }"));
        CliRun run = CliRun.of("run", where.toString());
        assertTrue(run.exitCode() != 0, run.all());
        assertTrue(run.all().contains("badwhere.yaml:8:5: error[PG315]")
                && run.all().contains("column \"pricey\" does not exist"), run.all());
        CliRun lint = CliRun.of("lint", where.toString(), "--connect");
        assertTrue(lint.all().contains("PG315") && lint.all().contains("where.yaml:"), lint.all());
    }

    private static String text(LedgerFixture f, String query) throws SQLException {
        try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static List<String> ledgerText(LedgerFixture f) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement();
             ResultSet tables = s.executeQuery("SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) "
                     + "FROM information_schema.tables WHERE table_schema = 'sluice'")) {
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            for (String table : names) {
                try (Statement t = c.createStatement(); ResultSet rs = t.executeQuery("SELECT x::text FROM " + table
                        + " x")) {
                    while (rs.next()) {
                        rows.add(rs.getString(1));
                    }
                }
            }
        }
        return rows;
    }

    private static List<String> columns(LedgerFixture f, String table) throws SQLException {
        return f.columns(f.target, table);
    }
}
