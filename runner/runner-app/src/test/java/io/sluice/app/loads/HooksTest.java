package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream's {@code before:} and {@code after:} on real PostgreSQL: shown by the plan, run once per run across a
 * SIGKILL and {@code --resume}, again by a fresh run, and an {@code after:} that fails leaves the run unfinished until
 * a resume runs it (and only it).
 */
class HooksTest {
    @TempDir
    Path dir;

    @Test
    void hooksRunOncePerRunAcrossAKillAndAResumeAndAgainInAFreshRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "hooks", 200_000);
        f.sql(f.target, "CREATE TABLE hook_log (phase text, rows_then bigint)");
        Path spec = f.spec("hooks.yaml", "ctid", 2, 5000,
                "before: \"INSERT INTO hook_log SELECT 'before', count(*) FROM {table}\"",
                "after:",
                "  - \"INSERT INTO hook_log SELECT 'after', count(*) FROM {table}\"",
                "  - \"COMMENT ON TABLE {table} IS 'loaded'\"");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("target hook (before the load, once per run, in one transaction):")
                && plan.out().contains("INSERT INTO hook_log SELECT 'before', count(*) FROM \"public\".\"items\""),
                plan.out());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM hook_log"), "a plan runs nothing");

        f.killAfterDone(spec, "h-1", 3);
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after'"));
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "h-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.all().contains("after hook ran (2 statements)"), resumed.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"),
                "the resume did not run the before hook again");
        assertEquals(200_000, f.scalar(f.target, "SELECT rows_then FROM hook_log WHERE phase = 'after'"),
                "after ran once every row was in");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_description WHERE objoid = 'items'::regclass "
                + "AND description = 'loaded'"));

        CliRun fresh = CliRun.of("run", spec.toString());
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"));
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after'"));
        assertEquals(0, f.differences());
    }

    @Test
    void aFailingAfterHookLeavesTheRunUnfinishedAndAResumeRunsOnlyIt() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "hookfail", 1000);
        f.sql(f.target, "CREATE TABLE hook_log (phase text)");
        Path spec = f.spec("fail.yaml", "ctid", 2, 100, "before: \"INSERT INTO hook_log VALUES ('before')\"",
                "after: [\"INSERT INTO hook_log VALUES ('after')\", \"SELECT 1 / (SELECT count(*) - count(*) FROM "
                        + "hook_log)\"]");
        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "hf-1");
        assertTrue(failed.exitCode() != 0, failed.all());
        assertTrue(failed.all().contains("after hook, statement 2 of 2") && failed.all().contains("division by zero"),
                failed.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after'"),
                "the hook's statements and its mark commit together, or not at all");
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM items"));

        Files.writeString(spec, Files.readString(spec).replace("SELECT 1 / (SELECT count(*) - count(*) FROM "
                + "hook_log)", "SELECT 1"));
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "hf-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after'"));
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"));
        assertEquals(0, f.differences(), "the resume copied nothing twice");
    }

    @Test
    void runHooksRunOncePerRunBeforeTheFirstStreamAndAfterTheLastAcrossAKillAndAResume() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "runhooks", 200_000);
        f.sql(f.source, "CREATE TABLE other AS SELECT * FROM items WHERE id <= 1000");
        f.sql(f.target, "CREATE TABLE other (LIKE items)", "CREATE TABLE hook_log (phase text, items bigint, "
                + "other bigint)");
        Path spec = dir.resolve("run-hooks.yaml");
        Files.writeString(spec, """
                version: 1
                name: run-hooks
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                before:
                  - connection: dst
                    sql: "INSERT INTO hook_log SELECT 'before', (SELECT count(*) FROM items), (SELECT count(*) FROM other)"
                after:
                  - connection: dst
                    sql:
                      - "INSERT INTO hook_log SELECT 'after', (SELECT count(*) FROM items), (SELECT count(*) FROM other)"
                      - "SELECT 1 / (SELECT count(*) FROM hook_log WHERE phase = 'armed')"
                streams:
                  - name: items
                    source: { connection: src, table: items }
                    target: { connection: dst, table: items }
                    distribution: { method: ctid }
                    degree: 2
                    batch-size: 5000
                    load-mode: truncate
                  - name: other
                    source: { connection: src, table: other }
                    target: { connection: dst, table: other }
                    load-mode: truncate
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        f.killAfterDone(spec, "rh-1", 3);
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after'"));

        // The after hook fails (not armed): the run is unfinished, nothing of the hook committed.
        CliRun failed = CliRun.of("run", spec.toString(), "--resume", "rh-1");
        assertTrue(failed.exitCode() != 0 && failed.all().contains("the run's after hook #1 (connection 'dst')")
                && failed.all().contains("division by zero"), failed.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"),
                "the resume did not run the before hook again");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after'"));

        f.sql(f.target, "INSERT INTO hook_log VALUES ('armed', 0, 0)");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "rh-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.all().contains("run: after hook on dst ran (2 statements)"), resumed.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after' AND items = 200000 "
                + "AND other = 1000"), "after ran once, with every stream's rows in");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"));
        assertEquals(0, f.differences());
    }

    @Test
    void aSingleStreamRunHasItsRunHooksToo() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "onehook", 500);
        f.sql(f.target, "CREATE TABLE hook_log (phase text, items bigint, n serial)");
        Path spec = f.spec("one.yaml", "none", 1, 1000);
        Files.writeString(spec, Files.readString(spec).stripTrailing() + "\n    after: [\"INSERT INTO hook_log SELECT "
                + "'stream after', count(*) FROM {table}\"]\n");
        Files.writeString(spec, Files.readString(spec).replace("streams:\n", """
                before:
                  - connection: dst
                    sql: "INSERT INTO hook_log SELECT 'before', count(*) FROM items"
                after:
                  - connection: dst
                    sql: "INSERT INTO hook_log SELECT 'after', count(*) FROM items"
                streams:
                """));
        for (int run = 1; run <= 2; run++) {
            CliRun result = CliRun.of("run", spec.toString());
            assertEquals(0, result.exitCode(), result.all());
            assertTrue(result.all().contains("run: before hook on dst ran (1 statement)"), result.all());
        }
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'before'"));
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM hook_log WHERE phase = 'after' AND items = 500"));
        assertEquals(500, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals("before,stream after,after,before,stream after,after", f.scalarText(f.target, "SELECT "
                + "string_agg(phase, ',' ORDER BY n) FROM hook_log"), "the run's after hooks come after the streams'");
    }
}
