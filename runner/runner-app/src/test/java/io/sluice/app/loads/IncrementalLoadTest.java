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
 * {@code incremental: { cursor: ... }} on real PostgreSQL: the first run reads everything, each later run only the
 * rows whose cursor grew since the last run that ended done; a failed run moves no mark, so the run after it reads
 * its window again; {@code --full-refresh} reads everything once.
 */
class IncrementalLoadTest {
    @TempDir
    Path dir;

    @Test
    void eachRunReadsWhatGrewSinceTheLastDoneRunAndAFailedRunMovesNoMark() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "incr", 1);
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at timestamptz NOT NULL, payload text)",
                "INSERT INTO events SELECT g, timestamptz '2026-01-01' + g * interval '1 second', 'v1 ' || g "
                        + "FROM generate_series(1, 10000) g");
        f.sql(f.target, "CREATE TABLE events (id bigint, updated_at timestamptz, payload text)");
        Path spec = eventsSpec(f, "incremental-test", "distribution: { method: range, key: id }", "degree: 2",
                "batch-size: 2000");

        run(spec, "incr-1", 0);
        assertEquals(10_000, f.scalar(f.target, "SELECT count(*) FROM events"), "the first run reads everything");
        CliRun planned = CliRun.of("plan", spec.toString());
        assertEquals(0, planned.exitCode(), planned.all());
        assertTrue(planned.out().contains("incremental: rows with updated_at > 2026-01-01 02:46:40"),
                planned.out());

        // New rows and updated ones: the next run copies exactly those (append: an update arrives as a new row).
        f.sql(f.source, "INSERT INTO events SELECT g, timestamptz '2026-02-01' + g * interval '1 second', 'v1 ' || g "
                + "FROM generate_series(10001, 10500) g", "UPDATE events SET updated_at = timestamptz '2026-03-01', "
                + "payload = 'v2' WHERE id <= 100");
        run(spec, "incr-2", 0);
        assertEquals(10_600, f.scalar(f.target, "SELECT count(*) FROM events"), "500 new rows and 100 updated ones");
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM events WHERE payload = 'v2'"));

        // A run that fails moves no mark: the run after it reads its window again.
        f.sql(f.source, "INSERT INTO events VALUES (20001, timestamptz '2026-04-01', 'refused by the target')");
        f.sql(f.target, "ALTER TABLE events ADD CONSTRAINT no_refused CHECK (payload <> 'refused by the target')");
        run(spec, "incr-3", 1);
        f.sql(f.target, "ALTER TABLE events DROP CONSTRAINT no_refused");
        CliRun status = CliRun.of("status", spec.toString(), "incr-3");
        assertTrue(status.out().contains("not done: the mark does not move"), status.out());
        run(spec, "incr-4", 0);
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM events WHERE id = 20001"), "read after the failure");
        assertEquals(10_601, f.scalar(f.target, "SELECT count(*) FROM events"));

        run(spec, "incr-5", 0);
        assertEquals(10_601, f.scalar(f.target, "SELECT count(*) FROM events"), "nothing grew: nothing copied");

        CliRun full = CliRun.of("run", spec.toString(), "--run-id", "incr-6", "--full-refresh");
        assertEquals(0, full.exitCode(), full.all());
        assertEquals(10_601 + 10_501, f.scalar(f.target, "SELECT count(*) FROM events"),
                "--full-refresh read every row again");
    }

    @Test
    void withMergeEachRunLeavesTheTargetEqualToTheSource() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "incmerge", 1);
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at bigint NOT NULL, payload text)",
                "INSERT INTO events SELECT g, g, 'v1 ' || g FROM generate_series(1, 5000) g");
        f.sql(f.target, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at bigint, payload text)");
        Path spec = eventsSpec(f, "incremental-merge", "load-mode: merge", "distribution: { method: range, key: id }",
                "degree: 2", "batch-size: 1000");
        for (int round = 1; round <= 3; round++) {
            run(spec, "merge-" + round, 0);
            assertEquals(0, f.differences("events"), "round " + round + ": the target equals the source");
            // Between runs: new rows, and updates that move the cursor; the next run reads exactly those.
            f.sql(f.source, "INSERT INTO events SELECT g, 10000 * " + round + " + g, 'new " + round + "' "
                    + "FROM generate_series(5000 + 100 * " + round + " + 1, 5000 + 100 * " + round + " + 100) g",
                    "UPDATE events SET updated_at = 10000 * " + round + " + 5000 + id, payload = 'v" + (round + 1)
                            + "' WHERE id % 50 = " + round);
        }
    }

    @Test
    void aResumedRunFinishesItsOwnWindowAndLeavesLaterRowsToTheNextRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "incres", 1);
        // Equal-width range partitions of id 1..1000000: the first holds ids 1..10000, the last only id 1000000, the
        // others nothing; largest first, so the failing one runs after the first is done (a run stops at a failure).
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at bigint NOT NULL, payload text)",
                "INSERT INTO events SELECT g, g, 'p ' || g FROM generate_series(1, 10000) g",
                "INSERT INTO events VALUES (1000000, 1, 'the last partition')",
                "ANALYZE events");
        f.sql(f.target, "CREATE TABLE events (id bigint, updated_at bigint, payload text)",
                "ALTER TABLE events ADD CONSTRAINT not_yet CHECK (id <> 1000000)");
        Path spec = eventsSpec(f, "incremental-resume", "distribution: { method: range, key: id }", "batch-size: 2000");
        run(spec, "res-1", 1); // the partition holding id 1000000 fails; the others are done
        assertEquals(10_000, f.scalar(f.target, "SELECT count(*) FROM events"), "rows before the resume");

        f.sql(f.source, "INSERT INTO events SELECT g, g, 'later ' || g FROM generate_series(10001, 10100) g");
        f.sql(f.target, "ALTER TABLE events DROP CONSTRAINT not_yet");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "res-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(10_001, f.scalar(f.target, "SELECT count(*) FROM events"),
                "the resume finished the first window (up to 10000), not the rows that came later");
        run(spec, "res-2", 0);
        assertEquals(10_101, f.scalar(f.target, "SELECT count(*) FROM events"), "the next run reads the later rows");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM events"), "each row once");
    }

    @Test
    void rowsCommittedWhileARunCopiesAreReadByTheNextRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "incwriter", 1);
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at bigint NOT NULL, payload text)",
                "INSERT INTO events SELECT g, g, 'p ' || g FROM generate_series(1, 5000) g");
        f.sql(f.target, "CREATE TABLE events (id bigint, updated_at bigint, payload text)");
        // No snapshot hides the writer's rows: only the window keeps them out.
        Path spec = eventsSpec(f, "incremental-writer", "consistency: none");
        // The run plans (its window ends at updated_at 5000), then waits for the target table, which this test holds
        // locked; meanwhile a writer commits rows above the window. They are the next run's.
        try (java.sql.Connection holder = f.pg.connect(f.target); java.sql.Statement lock = holder.createStatement()) {
            holder.setAutoCommit(false);
            lock.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
            Process run = LedgerFixture.startSluice(dir.resolve("writer-1.log"), "run", spec.toString(), "--run-id",
                    "writer-1");
            while (f.scalar(f.target, "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    + "WHERE c.relname = 'events' AND NOT l.granted") == 0) {
                assertTrue(run.isAlive(), Files.readString(dir.resolve("writer-1.log")));
                Thread.sleep(10); // polling for the run to reach the lock, not timing anything
            }
            f.sql(f.source, "INSERT INTO events SELECT g, g, 'during ' || g FROM generate_series(5001, 5100) g");
            holder.commit();
            assertTrue(run.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, run.exitValue(), Files.readString(dir.resolve("writer-1.log")));
        }
        assertEquals(5_000, f.scalar(f.target, "SELECT count(*) FROM events"), "the run kept to its window");
        run(spec, "writer-2", 0);
        assertEquals(5_100, f.scalar(f.target, "SELECT count(*) FROM events"), "the next run read what was committed "
                + "during the first");
    }

    @Test
    void lintRefusesAnIncrementalStreamThatCannotWorkWithPositions() throws Exception {
        Path spec = dir.resolve("bad.yaml");
        Files.writeString(spec, """
                version: 1
                name: incremental-bad
                connections:
                  src: { type: postgres, url: "jdbc:postgresql://localhost/x" }
                  lake: { type: duckdb }
                streams:
                  - name: events
                    source: { connection: src, table: events }
                    target: { connection: src, table: events_copy }
                    verify: count
                    incremental: { cursr: updated_at }
                  - name: files
                    source: { connection: lake, files: "data/*.parquet" }
                    target: { connection: src, table: files }
                    incremental: { cursor: id }
                """);
        CliRun lint = CliRun.of("lint", spec.toString());
        assertEquals(3, lint.exitCode(), lint.all());
        String out = lint.all();
        assertTrue(out.contains("bad.yaml:11:") && out.contains("unknown key 'cursr'") && out.contains("'cursor'"),
                out);
        assertTrue(out.contains("error[SPEC027]") && out.contains("verify: count"), out);
        assertTrue(out.contains("connector 'duckdb' cannot load incrementally by cursor"), out);
    }

    /** A spec copying {@code events} by cursor {@code updated_at}; {@code extra} lines go into the stream. */
    @Test
    void aKilledAppendRunIsFinishedByResumeAndAFreshRunOverItIsRefused() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "inckill", 1);
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at bigint NOT NULL, payload text)",
                "INSERT INTO events SELECT g, g, 'p ' || g FROM generate_series(1, 200000) g");
        f.sql(f.target, "CREATE TABLE events (id bigint, updated_at bigint, payload text)");
        Path spec = eventsSpec(f, "incremental-kill", "distribution: { method: range, key: id }", "degree: 2",
                "batch-size: 10000");
        f.killAfterDone(spec, "kill-1", 3);
        long committed = f.scalar(f.target, "SELECT count(*) FROM events");
        assertTrue(committed > 0 && committed < 200_000, committed + " rows committed before the kill");

        // The next scheduled run, fresh: it would read the dead run's window again and double its rows.
        CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "kill-2");
        assertEquals(4, fresh.exitCode(), fresh.all());
        assertTrue(fresh.all().contains("error[RESUME008]") && fresh.all().contains("--resume kill-1")
                && fresh.all().contains("--discard-unfinished"), fresh.all());
        assertEquals(committed, f.scalar(f.target, "SELECT count(*) FROM events"), "nothing was written");

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "kill-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        f.sql(f.source, "INSERT INTO events SELECT g, g, 'later ' || g FROM generate_series(200001, 200010) g");
        run(spec, "kill-3", 0);
        assertEquals(200_010, f.scalar(f.target, "SELECT count(*) FROM events"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM events"), "each row once");

        // After removing a dead run's rows by hand, --discard-unfinished starts afresh over it.
        f.sql(f.source, "INSERT INTO events SELECT g, g, 'more ' || g FROM generate_series(200011, 300000) g");
        f.killAfterDone(spec, "kill-4", 1);
        f.sql(f.target, "DELETE FROM events WHERE id > 200010");
        CliRun discarded = CliRun.of("run", spec.toString(), "--run-id", "kill-6", "--discard-unfinished");
        assertEquals(0, discarded.exitCode(), discarded.all());
        assertEquals(300_000, f.scalar(f.target, "SELECT count(*) FROM events"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM events"), "each row once");
    }

    @Test
    void truncateOrReplaceWithIncrementalIsRefusedByLint() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "inctrunc", 1);
        for (String mode : java.util.List.of("truncate", "replace")) {
            Path spec = eventsSpec(f, "incremental-" + mode, "load-mode: " + mode);
            CliRun lint = CliRun.of("lint", spec.toString());
            assertEquals(3, lint.exitCode(), lint.all());
            assertTrue(lint.all().contains("events.yaml:11:") && lint.all().contains("error[SPEC028]")
                    && lint.all().contains("would throw away every row but that"), lint.all());
        }
    }

    @Test
    void rowsWithANullCursorAreLoadedByTheFirstRunAndAFullRefresh() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "incnull", 1);
        f.sql(f.source, "CREATE TABLE events (id bigint PRIMARY KEY, updated_at bigint, payload text)",
                "INSERT INTO events SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE g END, 'p' FROM "
                        + "generate_series(1, 1000) g");
        f.sql(f.target, "CREATE TABLE events (id bigint, updated_at bigint, payload text)");
        Path spec = eventsSpec(f, "incremental-null", "load-mode: merge", "merge-key: [id]");
        f.sql(f.target, "ALTER TABLE events ADD PRIMARY KEY (id)");
        run(spec, "null-1", 0);
        assertEquals(0, f.differences("events"), "the 100 rows whose cursor is NULL too");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("is NULL is read only by a first run or --full-refresh"), plan.out());
        f.sql(f.source, "INSERT INTO events VALUES (1001, NULL, 'later, no cursor')");
        run(spec, "null-2", 0);
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM events"), "a later NULL waits for a full refresh");
        CliRun full = CliRun.of("run", spec.toString(), "--run-id", "null-3", "--full-refresh");
        assertEquals(0, full.exitCode(), full.all());
        assertEquals(0, f.differences("events"));
    }

    private Path eventsSpec(LedgerFixture f, String name, String... extra) throws Exception {
        Path spec = dir.resolve("events.yaml");
        Files.writeString(spec, """
                version: 1
                name: %s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: events
                    source: { connection: src, table: events }
                    target: { connection: dst, table: events }
                    incremental: { cursor: updated_at }
                """.formatted(name, f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user())
                + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    private static void run(Path spec, String runId, int exitCode) {
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", runId);
        assertEquals(exitCode, run.exitCode(), run.all());
    }
}
