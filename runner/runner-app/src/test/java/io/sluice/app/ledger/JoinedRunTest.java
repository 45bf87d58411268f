package io.sluice.app.ledger;

import io.sluice.app.CliRun;
import io.sluice.connector.postgres.session.TargetOwnership;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One run shared by several processes ({@code --join}): four child JVMs claim the partitions of one run from the
 * ledger; one is killed with SIGKILL mid-run, and the others take its partitions over once its lease ends. Every
 * process that lives ends 0, the target equals the source, and every partition is done once.
 */
class JoinedRunTest {
    private static final Duration DEADLINE = Duration.ofSeconds(180);

    @TempDir
    Path dir;

    @Test
    void fourProcessesShareARunOfATableAndTheSurvivorsTakeOverFromOneKilled() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joined", 200_000);
        Path spec = f.spec("items.yaml", "ctid", 1, 2_000, "consistency: none");
        shareAndKillOne(f, spec, "joined-1", 90);
    }

    @Test
    @Tag(TestTier.FULL_ONLY) // quick: the same take-over of a table's partitions
    void fourProcessesShareARunOf32ParquetFilesAndTheSurvivorsTakeOverFromOneKilled() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joinfiles", 320_000);
        Path files = Files.createDirectories(dir.resolve("files"));
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            for (int file = 0; file < 32; file++) {
                s.execute("COPY (SELECT g::BIGINT AS id, 'item ' || g AS name, (g / 7.0)::DECIMAL(10,2) AS price "
                        + "FROM range(" + (file * 10_000 + 1) + ", " + (file * 10_000 + 10_001) + ") t(g)) TO '"
                        + files.resolve("items-" + file + ".parquet") + "' (FORMAT parquet)");
            }
        }
        Path spec = dir.resolve("files.yaml");
        Files.writeString(spec, """
                version: 1
                name: joined-files
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: lake, files: "%s" }
                    target: { connection: dst, table: items }
                    degree: 1
                    load-mode: truncate
                """.formatted(f.pg.jdbcUrl(f.target), f.pg.user(), files.resolve("items-*.parquet")));
        shareAndKillOne(f, spec, "joined-files-1", 32);
    }

    private static void signal(Process process, String signal) throws Exception {
        io.sluice.app.Signals.send(process, signal);
    }

    /**
     * Four processes join {@code runId}; the first is killed with SIGKILL while it holds a partition; the other three
     * must end 0 with the target equal to the source, every partition done once, the killed one's taken over.
     */
    private void shareAndKillOne(LedgerFixture f, Path spec, String runId, int atLeastPartitions) throws Exception {
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            processes.add(start(spec, runId, dir.resolve("p" + i + ".log")));
        }
        long planned = waitFor(f, processes.getFirst(), runId, 3);
        assertTrue(planned >= atLeastPartitions, planned + " partitions planned");
        // Kill a process while it holds a partition, mid-copy: whichever is holding one when the test looks. It is
        // stopped (SIGSTOP) before the look, so it cannot finish the partition between the look and the kill.
        Process killed = null;
        String holding = null;
        while (killed == null) {
            for (Process candidate : processes) {
                String query = "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId + "' AND "
                        + "state = 'planned' AND claimed_by LIKE '" + candidate.pid() + "@%'";
                if (!candidate.isAlive()) {
                    continue;
                }
                signal(candidate, "STOP");
                awaitSent(f, candidate);
                if (f.scalar(f.target, query) > 0) {
                    killed = candidate;
                    holding = query;
                    break;
                }
                signal(candidate, "CONT");
            }
            assertTrue(killed != null || f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE "
                    + "run_id = '" + runId + "' AND state = 'planned'") > 0, "every partition was done before a "
                    + "process could be caught holding one");
            Thread.sleep(2);
        }
        // Its claims, read while it is stopped (it cannot change them): read after the kill, a survivor could
        // already have taken them over when the machine is loaded (seen once with two test JVMs).
        List<String> orphaned = new ArrayList<>();
        try (Connection c = f.pg.connect(f.target); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(holding.replace("count(*)", "partition_id"))) {
            while (rs.next()) {
                orphaned.add(rs.getString(1));
            }
        }
        killed.destroyForcibly(); // SIGKILL: its claims stay in the ledger until their leases end
        assertTrue(killed.waitFor(30, TimeUnit.SECONDS));
        int survivor = -1;
        for (int i = 0; i < processes.size(); i++) {
            Process p = processes.get(i);
            if (p == killed) {
                continue;
            }
            survivor = i;
            assertTrue(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "process " + i + " did not end");
            assertEquals(0, p.exitValue(), log(i));
        }
        assertEquals(0, f.differences(), "the target equals the source");
        assertEquals(planned, f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '"
                + runId + "' AND state = 'done'"), "every planned partition done");
        assertEquals(f.scalar(f.source, "SELECT count(*) FROM items"), f.scalar(f.target, "SELECT row_count FROM "
                + "sluice.run_streams WHERE run_id = '" + runId + "'"), "the stream's rows are every process's");
        assertTrue(!orphaned.isEmpty(), "the killed process held a partition");
        for (String partition : orphaned) {
            assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId
                    + "' AND partition_id = '" + partition.replace("'", "''") + "' AND state = 'done' AND "
                    + "claimed_by NOT LIKE '" + killed.pid() + "@%'"), "partition " + partition
                    + " of the killed process, taken over");
        }
        assertTrue(f.scalar(f.target, "SELECT count(DISTINCT claimed_by) FROM sluice.run_partitions WHERE run_id = '"
                + runId + "'") >= 2, "the processes shared the partitions");
        assertTrue(log(survivor).contains("joined run " + runId + ": this process copied "), log(survivor));
        CliRun status = CliRun.of("status", spec.toString(), runId);
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("copied by "), status.out());

        // Joining a run that is done copies nothing and ends 0.
        CliRun late = CliRun.of("run", spec.toString(), "--run-id", runId, "--join");
        assertEquals(0, late.exitCode(), late.all());
        assertEquals(0, f.differences());
    }

    @Test
    void aPausedProcessLosesItsPartitionsAndTheOthersDoNotWaitOnItsUncommittedRows() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joinpause", 400_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)"); // a taken-over copy meets the paused one's keys
        Path spec = f.spec("items.yaml", "ctid", 1, 40_000, "consistency: none", "lock-timeout: 20s",
                "retry: { max-attempts: 3, initial-backoff: 100ms }");
        String runId = "joinpause-1";
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            processes.add(start(spec, runId, dir.resolve("p" + i + ".log")));
        }
        waitFor(f, processes.getFirst(), runId, 1);
        // Pause a process while its COPY into the target is open (uncommitted rows, the partition's ledger row
        // locked): the state a stuck pod leaves. Caught by the COPY's lock on the table, not by any transaction of
        // the process: one paused inside a stream-level ledger transaction (the end of a stream) makes the other
        // wait its lock-timeout and fail naming the holder (PG420), which is that case's own behaviour.
        Process paused = null;
        while (paused == null) {
            for (Process candidate : processes) {
                if (!candidate.isAlive()) {
                    continue;
                }
                signal(candidate, "STOP");
                boolean writing = f.scalar(f.target, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON "
                        + "a.pid = l.pid WHERE l.locktype = 'relation' AND l.relation = 'items'::regclass "
                        + "AND l.mode = 'RowExclusiveLock' AND a.state = 'active' AND a.application_name LIKE '"
                        + TargetOwnership.runToken(runId) + candidate.pid() + "@%'") > 0;
                if (writing) {
                    paused = candidate;
                    break;
                }
                signal(candidate, "CONT");
            }
            assertTrue(paused != null || f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE "
                    + "run_id = '" + runId + "' AND state = 'planned'") > 0, "every partition was done before a "
                    + "process could be caught writing one");
            Thread.sleep(2);
        }
        int other = processes.indexOf(paused) == 0 ? 1 : 0;
        try {
            assertTrue(processes.get(other).waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the other ended");
            assertEquals(0, processes.get(other).exitValue(), log(other));
            assertEquals(0, f.differences(), "the target equals the source while the paused process sleeps");
        } finally {
            signal(paused, "CONT");
        }
        assertTrue(paused.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the paused process ended once woken");
        int pausedIndex = processes.indexOf(paused);
        assertEquals(0, paused.exitValue(), "it lost its partitions cleanly: " + log(pausedIndex));
        assertEquals(0, f.differences(), "and wrote nothing twice");
    }

    /**
     * A process paused inside a ledger transaction keeps a partition's row locked after its lease ends: no other
     * process can claim it. Played here by a session named as a process of the run that locks the last unclaimed
     * partition and never commits: the live process must end that session and copy the partition, not wait for ever.
     */
    @Test
    void aPartitionLockedByAProcessPausedInsideALedgerTransactionIsTakenBackAfterTheLease() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joinstall", 200_000);
        Path spec = f.spec("items.yaml", "ctid", 1, 2_000, "consistency: none");
        String runId = "joinstall-1";
        Process live = start(spec, runId, dir.resolve("p0.log"));
        waitFor(f, live, runId, 1);
        try (Connection ghost = f.pg.connect(f.target)) {
            try (Statement s = ghost.createStatement()) {
                s.execute("SET application_name = '" + TargetOwnership.sessionTag(runId, "424242@ghost") + "'");
            }
            ghost.setAutoCommit(false);
            String locked;
            try (Statement s = ghost.createStatement(); ResultSet rs = s.executeQuery("SELECT partition_id FROM "
                    + "sluice.run_partitions WHERE run_id = '" + runId + "' AND state = 'planned' AND claimed_by IS "
                    + "NULL ORDER BY partition_index DESC LIMIT 1 FOR UPDATE")) {
                assertTrue(rs.next(), "a partition not claimed yet");
                locked = rs.getString(1);
            }
            assertTrue(live.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the live process ended: " + log(0));
            assertEquals(0, live.exitValue(), log(0));
            assertTrue(log(0).contains("ended 1 session(s) of another process of run " + runId), log(0));
            assertEquals(0, f.differences(), "the target equals the source");
            assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId
                    + "' AND partition_id = '" + locked.replace("'", "''") + "' AND state = 'done'"), locked);
            try (Statement s = ghost.createStatement()) {
                s.execute("SELECT 1");
                throw new AssertionError("the stalled session was not ended");
            } catch (java.sql.SQLException ended) {
                // terminated by the live process, as a paused one would be
            }
        }
    }

    /**
     * A passing fault in the ledger while claiming (here a serialization failure the server raises once, through a
     * trigger; in life a ledger session ended by another process that took over while this one was paused) is retried
     * like a partition's, not fatal: the process ends 0 and the target equals the source.
     */
    @Test
    void aPassingLedgerFaultWhileClaimingIsRetriedNotFatal() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joinfault", 50_000);
        Path spec = f.spec("items.yaml", "ctid", 1, 5_000, "consistency: none");
        CliRun first = CliRun.of("run", spec.toString(), "--run-id", "joinfault-1"); // creates the ledger
        assertEquals(0, first.exitCode(), first.all());
        f.sql(f.target, "CREATE SEQUENCE public.fault_once",
                "CREATE FUNCTION public.fault_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF NEW.run_id = 'joinfault-2' AND NEW.claimed_by IS NOT NULL AND NEW.state = 'planned' "
                        + "AND nextval('public.fault_once') = 1 THEN "
                        + "RAISE EXCEPTION 'injected passing fault' USING ERRCODE = '40001'; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER fault_once BEFORE INSERT OR UPDATE ON sluice.run_partitions FOR EACH ROW "
                        + "EXECUTE FUNCTION public.fault_once()");
        CliRun joined = CliRun.of("run", spec.toString(), "--run-id", "joinfault-2", "--join");
        assertEquals(0, joined.exitCode(), joined.all());
        assertTrue(joined.all().contains("claiming a partition failed (attempt 1), trying again"), joined.all());
        assertTrue(f.scalar(f.target, "SELECT last_value FROM public.fault_once") >= 1, "the fault was raised");
        assertEquals(0, f.differences(), "the target equals the source");
    }

    @Test
    void aPermanentFailureInOneProcessEndsTheOthersWithItsCauseAndTheRunStaysResumable() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joinfail", 100_000);
        f.sql(f.target, "ALTER TABLE items ADD CONSTRAINT price_limit CHECK (price < 100000)");
        f.sql(f.source, "UPDATE items SET price = 999999 WHERE id = 77777"); // one partition cannot load
        Path spec = f.spec("items.yaml", "ctid", 1, 2_000, "consistency: none");
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            processes.add(start(spec, "joinfail-1", dir.resolve("p" + i + ".log")));
        }
        for (int i = 0; i < processes.size(); i++) {
            assertTrue(processes.get(i).waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "process " + i);
            assertEquals(1, processes.get(i).exitValue(), log(i));
        }
        String both = log(0) + log(1);
        assertTrue(both.contains("price_limit"), "the cause, in the process that met it: " + both);
        assertTrue(both.contains("error[RUN050]") && both.matches("(?s).*RUN050.*price_limit.*"),
                "the other process ends with that cause: " + both);

        f.sql(f.target, "ALTER TABLE items DROP CONSTRAINT price_limit");
        CliRun again = CliRun.of("run", spec.toString(), "--run-id", "joinfail-1", "--join");
        assertEquals(0, again.exitCode(), again.all());
        assertEquals(0, f.differences(), "joined again, the run completes exactly");
    }

    @Test
    void aJoinedRunRefusesOneProcesssSnapshotBeforeWritingAnything() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "joinsnap", 1_000);
        Path spec = f.spec("items.yaml", "ctid", 1, 100, "consistency: snapshot");
        CliRun refused = CliRun.of("run", spec.toString(), "--run-id", "snap-1", "--join");
        assertEquals(3, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("error[PLAN003]") && refused.err().contains("consistency: none"),
                refused.err());
        CliRun noId = CliRun.of("run", f.spec("none.yaml", "ctid", 1, 100, "consistency: none").toString(),
                "--join");
        assertEquals(2, noId.exitCode(), noId.all());
        assertTrue(noId.err().contains("error[RESUME006]"), noId.err());
    }

    @Test
    void processesFinishingACreatedTableTogetherBuildItsKeyAndIndexOnce() throws Exception {
        // Both processes of a joined run reach the builds after the last partition: the first builds, the second
        // waits for it and finds them done. The key's ALTER TABLE waits in an event trigger until both are there.
        LedgerFixture f = new LedgerFixture(dir, "joinkey", 20_000);
        f.sql(f.source, "ALTER TABLE items ADD PRIMARY KEY (id)", "CREATE INDEX items_name ON items (name)");
        f.sql(f.target, "DROP TABLE items", "CREATE FUNCTION hold_key() RETURNS event_trigger LANGUAGE plpgsql AS $$ "
                + "BEGIN IF current_query() LIKE '%PRIMARY KEY%' THEN PERFORM pg_advisory_lock(55); "
                + "PERFORM pg_advisory_unlock(55); END IF; END $$", "CREATE EVENT TRIGGER hold_key ON "
                + "ddl_command_start WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION hold_key()");
        Path spec = f.spec("joinkey.yaml", "ctid", 1, 2_000, "consistency: none");
        Files.writeString(spec, Files.readString(spec).replace("target: { connection: dst, table: items }",
                "target: { connection: dst, table: items, create: if-missing }"));
        List<Process> processes = new ArrayList<>();
        try (Connection hold = f.pg.connect(f.target); Statement s = hold.createStatement()) {
            s.execute("SELECT pg_advisory_lock(55)");
            for (int i = 0; i < 2; i++) {
                processes.add(start(spec, "joinkey-1", dir.resolve("p" + i + ".log")));
            }
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            String waiting = "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE "
                    + "l.locktype = 'advisory' AND NOT l.granted AND d.datname = '" + f.target + "'";
            while (f.scalar(f.target, waiting) < 2) {
                for (int i = 0; i < processes.size(); i++) {
                    assertTrue(processes.get(i).isAlive(), log(i));
                }
                assertTrue(System.nanoTime() < deadline, "both processes did not come to the builds: " + log(0)
                        + log(1));
                Thread.sleep(20);
            }
        } // the lock goes: the first builds
        for (int i = 0; i < processes.size(); i++) {
            assertTrue(processes.get(i).waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "process " + i);
            assertEquals(0, processes.get(i).exitValue(), log(i));
        }
        assertEquals(0, f.differences(), "the target equals the source");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_constraint WHERE conrelid = 'items'::regclass "
                + "AND contype = 'p'"), "the key, once");
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM pg_indexes WHERE tablename = 'items'"),
                "the key's index and items_name");
    }

    private String log(int process) throws Exception {
        return Files.readString(dir.resolve("p" + process + ".log"));
    }

    /**
     * Waits until the server has done what the stopped process sent before its stop (a partition's COMMIT may still
     * land): none of its sessions is working, other than waiting to read from it (a COPY it was feeding).
     */
    private static void awaitSent(LedgerFixture f, Process stopped) throws Exception {
        String working = "SELECT count(*) FROM pg_stat_activity WHERE (application_name LIKE '% pid=" + stopped.pid()
                + " %' OR application_name LIKE '% " + stopped.pid() + "@%') AND state = 'active' AND wait_event IS "
                + "DISTINCT FROM 'ClientRead'";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (f.scalar("postgres", working) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(2); // polling the server for a state, not timing anything
        }
    }

    private static Process start(Path spec, String runId, Path log) throws Exception {
        return LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", runId, "--join", "--lease-seconds",
                "2", "--progress-interval", "1");
    }

    /** Polls the ledger until {@code done} partitions are done; returns how many the run planned. */
    private static long waitFor(LedgerFixture f, Process watched, String runId, int done) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!watched.isAlive()) {
                throw new AssertionError("the process ended before " + done + " partitions were done");
            }
            try {
                long doneNow = f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '"
                        + runId + "' AND state = 'done'");
                if (doneNow >= done) {
                    return f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId
                            + "' AND partition_index IS NOT NULL");
                }
            } catch (java.sql.SQLException e) {
                if (!"42P01".equals(e.getSQLState()) && !"3F000".equals(e.getSQLState())) {
                    throw e;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the run did not reach " + done + " done partitions in " + DEADLINE);
    }
}
