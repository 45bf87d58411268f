package io.sluice.app.ledger;

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
}
