package io.sluice.app.compare;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code verify: compare} on real PostgreSQL: the loaded rows compared with the run's source snapshot before they go
 * live. A replace whose new table differs keeps the old table; a one-transaction truncate that differs rolls back;
 * a load that writes as it goes fails after the fact, saying so; each differing row is named in the error and the
 * summary. Specs that cannot be compared are refused by lint.
 */
class VerifyCompareTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    @Test
    void aReplaceWhoseNewTableDiffersKeepsTheOldTableAndNamesTheRow() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "vcreplace", 2);
        f.sql(f.source, "CREATE TABLE orders (id bigint PRIMARY KEY, note text)",
                "INSERT INTO orders SELECT g, 'n ' || g FROM generate_series(1, 6000) g", "ANALYZE orders");
        f.sql(f.target, "CREATE TABLE orders (id bigint PRIMARY KEY, note text)",
                "INSERT INTO orders VALUES (1, 'old'), (2, 'old'), (3, 'old')");
        // Row 42's value is computed anew by each reading transaction: the copy's and the compare's differ.
        Path spec = spec(f, "vc-replace", "load-mode: replace", "degree: 2",
                "distribution: { method: range, key: id }", "batch-size: 1000", "columns:",
                "  note: { expression: \"CASE WHEN id = 42 THEN clock_timestamp()::text ELSE note END\" }");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("verify:      compare, row by row against the run's snapshot of the source, "
                + "on the new table before the swap"), plan.all());

        Path summary = dir.resolve("replace-summary.json");
        CliRun failed = CliRun.of("run", spec.toString(), "--summary-json", summary.toString());
        assertEquals(5, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("VERIFY001") && failed.err().contains("(id=42) changed: note")
                && failed.err().contains("nothing went live"), failed.all());
        assertEquals(3, f.scalar(f.target, "SELECT count(*) FROM orders WHERE note = 'old'"), "the old table is live");
        JsonNode verification = JSON.readTree(Files.readString(summary)).get("streams").get(0).get("verification");
        assertEquals("compare", verification.get("mode").asString());
        assertEquals("failed", verification.get("status").asString());
        assertEquals(List.of("(id=42) changed: note"), strings(verification.get("mismatches")));
        CliRun status = CliRun.of("status", spec.toString());
        assertTrue(status.out().contains("verify compare: failed: 1 differing row(s); 6000 rows in the source's "
                + "snapshot, 6000 loaded"), status.all());

        // The same load with a value every reader computes alike: compared equal, swapped in.
        Path equal = spec(f, "vc-replace-equal", "load-mode: replace", "degree: 2",
                "distribution: { method: range, key: id }", "batch-size: 1000", "columns:",
                "  note: { expression: \"upper(note)\" }");
        Path passed = dir.resolve("passed-summary.json");
        CliRun run = CliRun.of("run", equal.toString(), "--summary-json", passed.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(6000, f.scalar(f.target, "SELECT count(*) FROM orders WHERE note LIKE 'N %'"));
        JsonNode ok = JSON.readTree(Files.readString(passed)).get("streams").get(0).get("verification");
        assertEquals("passed", ok.get("status").asString());
        assertTrue(ok.get("detail").asString().startsWith("6000 rows in the source's snapshot, 6000 loaded, equal"),
                ok.toString());
    }

    @Test
    void aTruncateInOneTransactionRollsBackWhenARowDiffersAndOneWritingAsItGoesSaysItIsLive() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "vctrunc", 1);
        f.sql(f.source, "CREATE TABLE goods (id int PRIMARY KEY, label text)",
                "INSERT INTO goods SELECT g, 'l ' || g FROM generate_series(1, 3000) g");
        // A trigger on the target changes one row on the way in: the copy's counts match, the values do not.
        f.sql(f.target, "CREATE TABLE goods (id int PRIMARY KEY, label text)",
                "INSERT INTO goods VALUES (1, 'kept')",
                "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 7 THEN "
                        + "NEW.label := 'touched'; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER touch BEFORE INSERT ON goods FOR EACH ROW EXECUTE FUNCTION touch()");
        Path spec = spec(f, "vc-trunc", "load-mode: truncate", "degree: 1");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("in the load's transaction before its commit"), plan.all());
        CliRun failed = CliRun.of("run", spec.toString());
        assertEquals(5, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("(id=7) changed: label") && failed.err().contains("nothing went live"),
                failed.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM goods"), "rolled back: the target as it was");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM goods WHERE label = 'kept'"));

        // Two workers write partitions as they go: the compare comes after, and says the rows are live.
        Path live = spec(f, "vc-trunc-live", "load-mode: truncate", "degree: 2",
                "distribution: { method: range, key: id }", "batch-size: 1000");
        assertTrue(CliRun.of("plan", live.toString()).out().contains("after the load's last step"));
        CliRun after = CliRun.of("run", live.toString());
        assertEquals(5, after.exitCode(), after.all());
        assertTrue(after.err().contains("(id=7) changed: label") && after.err().contains("the rows are loaded"),
                after.all());
        assertEquals(3000, f.scalar(f.target, "SELECT count(*) FROM goods"));

        f.sql(f.target, "DROP TRIGGER touch ON goods");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(3000, f.scalar(f.target, "SELECT count(*) FROM goods"));
    }

    @Test
    void lintRefusesACompareThatCannotHold() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "vclint", 1);
        Path append = spec(f, "vc-append", "load-mode: append");
        CliRun appended = CliRun.of("lint", append.toString());
        assertEquals(3, appended.exitCode(), appended.all());
        assertTrue(appended.all().contains("SPEC028") && appended.all().contains("'verify: compare' with "
                + "'load-mode: append'"), appended.all());

        Path jdbc = dir.resolve("vc-jdbc.yaml");
        Files.writeString(jdbc, """
                version: 1
                name: vc-jdbc
                connections:
                  h2: { type: jdbc, url: "jdbc:h2:mem:shop" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: t
                    source: { connection: h2, table: t }
                    target: { connection: dst, table: t }
                    load-mode: truncate
                    verify: compare
                """.formatted(f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun refused = CliRun.of("lint", jdbc.toString());
        assertEquals(3, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("SPEC029") && refused.all().contains("the jdbc source cannot compute"),
                refused.all());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }

    private Path spec(LedgerFixture f, String name, String... extra) throws Exception {
        String table = name.startsWith("vc-trunc") ? "goods" : "orders";
        Path spec = dir.resolve(name + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: %s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: src, table: %s }
                    target: { connection: dst, table: %s }
                    verify: compare
                """.formatted(name, f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user(),
                table, table, table)
                + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }
}
