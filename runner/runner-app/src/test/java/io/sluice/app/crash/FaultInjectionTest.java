package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The promise of the ledger under real faults: a Sluice process killed at any moment, then resumed, leaves the
 * target equal to the source, with no duplicates and no gaps. The run is a child JVM; the kill moments are chosen by
 * ledger progress (0, 2, 4, ... done partitions), so each iteration kills at a different point of the copy.
 */
class FaultInjectionTest {
    private static final int KILLS = 10;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    @Tag(TestTier.FULL_ONLY) // ten SIGKILLs; quick: the crash matrix's sample
    void sigkillAtTenDifferentPointsThenResumeIsAlwaysExact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "kill", 200_000);
        Path spec = f.spec("items.yaml", "ctid", 2, 5_000);
        List<String> record = new ArrayList<>();
        for (int i = 0; i < KILLS; i++) {
            String runId = "kill-" + i;
            int killAfter = i * 2;
            Process child = start(spec, runId, dir.resolve(runId + ".log"));
            long done = waitForDone(f, child, runId, killAfter);
            child.destroyForcibly(); // SIGKILL: no handler runs, in-flight transactions die with the connections
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            CliRun resumed = CliRun.of("run", spec.toString(), "--resume", runId);
            assertEquals(0, resumed.exitCode(), resumed.all());
            long differences = f.differences();
            record.add(runId + ": killed with " + done + " partition(s) done (exit " + child.exitValue() + "), resumed, "
                    + differences + " difference(s)");
            assertEquals(0, differences, String.join("\n", record) + "\n" + Files.readString(dir.resolve(runId + ".log")));
        }
        System.out.println(String.join("\n", record));
    }

    @Test
    void sigtermCancelsInFlightCopiesRecordsInterruptedAndExits130() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "term", 200_000);
        // The partition holding id 100000 waits on the test's lock, so a COPY is in flight when SIGTERM comes
        // (without it the 40 partitions could all finish between the check and the signal: exit 0, seen once).
        f.sql(f.target, "CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 100000 "
                        + "THEN PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NEW; END $$",
                "CREATE TRIGGER hold BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION hold()");
        Path spec = f.spec("items.yaml", "ctid", 2, 5_000);
        Path log = dir.resolve("term.log");
        try (java.sql.Connection lock = f.pg.connect(f.target); java.sql.Statement s = lock.createStatement()) {
            s.execute("SELECT pg_advisory_lock(4242)");
            Process child = start(spec, "term-1", log);
            waitForDone(f, child, "term-1", 3);
            child.destroy(); // SIGTERM
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
            assertEquals(130, child.exitValue(), Files.readString(log));
            assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_streams WHERE run_id = 'term-1' "
                    + "AND state = 'interrupted'"), Files.readString(log));
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY%' "
                    + "AND state <> 'idle' AND pid <> pg_backend_pid()"), "no COPY left running on the server");
        }

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "term-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(0, f.differences());
    }

    private static Process start(Path spec, String runId, Path log) throws Exception {
        return LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", runId, "--progress-interval", "1");
    }

    /** Polls the ledger until at least {@code partitions} are done (or the stream is recorded, for 0). */
    private static long waitForDone(LedgerFixture f, Process child, String runId, int partitions) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!child.isAlive()) {
                throw new AssertionError("the run ended before the kill point (" + partitions + " partitions done)");
            }
            long done = f.donePartitions(runId);
            if (done >= partitions && started(f, runId)) {
                return done;
            }
            Thread.sleep(20);
        }
        child.destroyForcibly();
        throw new AssertionError("the run did not reach " + partitions + " done partitions in " + DEADLINE);
    }

    private static boolean started(LedgerFixture f, String runId) throws SQLException {
        return ledgerCount(f, "SELECT count(*) FROM sluice.run_streams WHERE run_id = '" + runId + "'") > 0;
    }


    private static long ledgerCount(LedgerFixture f, String query) throws SQLException {
        try {
            return f.scalar(f.target, query);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
                return 0; // the ledger is not created yet
            }
            throw e;
        }
    }
}
