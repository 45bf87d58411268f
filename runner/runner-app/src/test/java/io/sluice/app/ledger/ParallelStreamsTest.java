package io.sluice.app.ledger;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code max-parallel-streams} and {@code fail-fast}: streams copy several at once, the largest first; a failed
 * stream leaves the others to finish (exit code the worst stream's) unless {@code fail-fast: true} stops them; a
 * resume copies only what is not done, across all streams.
 */
class ParallelStreamsTest {
    @TempDir
    Path dir;

    @Test
    void streamsCopyAtOnceLargestFirstAndAFailedOneLeavesTheOthersDone() throws Exception {
        LedgerFixture f = tables("par");
        Path spec = spec(f, "max-parallel-streams: 2", "");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "par-1");
        assertEquals(1, run.exitCode(), run.all());
        assertEquals(20_000, f.scalar(f.target, "SELECT count(*) FROM big"), "the others finished: " + run.err());
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM small"));
        // Two at once, largest first: the two larger ones start together, the smallest waits for a free slot.
        assertEquals("broken", lastStarted(f, "par-1"), "the smallest stream started last");
        assertEquals("failed", state(f, "par-1", "broken"));
        assertTrue(run.err().contains("no_negative"), run.err());

        f.sql(f.target, "ALTER TABLE broken DROP CONSTRAINT no_negative");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "par-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.err().contains("stream big: done in run par-1 already; skipped"), resumed.err());
        assertEquals(50, f.scalar(f.target, "SELECT count(*) FROM broken"), "only the failed stream copied again");
        assertEquals(20_000, f.scalar(f.target, "SELECT count(*) FROM big"));
    }

    @Test
    void failFastStopsTheOthers() throws Exception {
        LedgerFixture f = tables("ff");
        Path spec = spec(f, "fail-fast: true", "  # one at a time, in spec order: broken runs first\n");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "ff-1");
        assertEquals(1, run.exitCode(), run.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM big"), "skipped after the failure: " + run.err());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM small"));
    }

    @Test
    void aRunThatWouldOpenMoreConnectionsThanTheServerAcceptsIsRefusedBeforeItWrites() throws Exception {
        LedgerFixture f = tables("budget");
        Path spec = dir.resolve("budget.yaml");
        Files.writeString(spec, """
                version: 1
                name: budget
                max-parallel-streams: 2
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: big
                    source: { connection: src, table: big }
                    target: { connection: dst, table: big }
                    distribution: { method: range, key: id }
                    batch-size: 50
                    degree: 250
                  - name: small
                    source: { connection: src, table: small }
                    target: { connection: dst, table: small }
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "budget-1");
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.err().contains("error[PLAN005]") && run.err().contains("max-parallel-streams 2")
                && run.err().contains("max_connections"), run.err());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM big"), "nothing written");
    }

    private LedgerFixture tables(String prefix) throws Exception {
        LedgerFixture f = new LedgerFixture(dir, prefix, 1);
        for (String db : new String[] {f.source, f.target}) {
            f.sql(db, "CREATE TABLE big (id bigint, v int)", "CREATE TABLE small (id bigint, v int)",
                    "CREATE TABLE broken (id bigint, v int)");
        }
        f.sql(f.source, "INSERT INTO big SELECT g, g FROM generate_series(1, 20000) g",
                "INSERT INTO small SELECT g, g FROM generate_series(1, 100) g",
                "INSERT INTO broken SELECT g, CASE WHEN g = 50 THEN -1 ELSE g END FROM generate_series(1, 50) g",
                "ANALYZE big", "ANALYZE small", "ANALYZE broken");
        f.sql(f.target, "ALTER TABLE broken ADD CONSTRAINT no_negative CHECK (v >= 0)");
        return f;
    }

    private Path spec(LedgerFixture f, String runSetting, String comment) throws Exception {
        Path spec = dir.resolve("streams.yaml");
        Files.writeString(spec, """
                version: 1
                name: parallel-streams
                %s
                %sconnections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - { name: broken, source: { connection: src, table: broken }, target: { connection: dst, table: broken } }
                  - { name: small, source: { connection: src, table: small }, target: { connection: dst, table: small } }
                  - { name: big, source: { connection: src, table: big }, target: { connection: dst, table: big } }
                """.formatted(runSetting, comment, f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target),
                f.pg.user()));
        return spec;
    }

    private static String lastStarted(LedgerFixture f, String runId) throws Exception {
        try (var c = f.pg.connect(f.target); var s = c.createStatement();
             var rs = s.executeQuery("SELECT stream FROM sluice.run_streams WHERE run_id = '" + runId
                     + "' ORDER BY started_at DESC LIMIT 1")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String state(LedgerFixture f, String runId, String stream) throws Exception {
        try (var c = f.pg.connect(f.target); var s = c.createStatement();
             var rs = s.executeQuery("SELECT state FROM sluice.run_streams WHERE run_id = '" + runId
                     + "' AND stream = '" + stream + "'")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
