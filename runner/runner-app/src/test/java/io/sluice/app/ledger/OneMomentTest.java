package io.sluice.app.ledger;

import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tables of a run that read one source connection show one moment of it, as pg_dump's do: a writer that
 * commits a parent and its child in one transaction while the run copies leaves no orphan and no childless parent
 * in the target. The pair that would split them is committed at the one moment that tells: when the run is about
 * to take the child table's snapshot (its lock request waits behind the test's), the parent table is already copied
 * in a run whose streams take a snapshot each.
 */
class OneMomentTest {
    private static final int ROWS = 30_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "max-parallel-streams {0}, degree {1}")
    @CsvSource({"1, 1", "1, 2", "3, 1", "3, 2"})
    void relatedRowsCommittedDuringTheRunArriveTogether(int parallel, int degree) throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("moment_src_" + parallel + degree);
        String target = pg.createDatabase("moment_dst_" + parallel + degree);
        sql(pg, source, "CREATE TABLE a_parent (id bigint PRIMARY KEY, note text)",
                "CREATE TABLE b_child (id bigint PRIMARY KEY, parent_id bigint NOT NULL, note text)",
                "INSERT INTO a_parent SELECT g, 'parent ' || g FROM generate_series(1, " + ROWS + ") g",
                "INSERT INTO b_child SELECT g, g, 'child ' || g FROM generate_series(1, " + ROWS + ") g",
                "ANALYZE");
        Path spec = dir.resolve("moment.yaml");
        Files.writeString(spec, """
                version: 1
                name: one-moment
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: all
                    source: { connection: src, table: "public.*" }
                    target: { connection: dst, table: "public.{table}", create: if-missing }
                    distribution: { method: ctid }
                    degree: %d
                    batch-size: 5000
                    load-mode: truncate
                max-parallel-streams: %d
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user(), degree, parallel));
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("one snapshot: the 2 streams reading connection 'src'"), plan.out());

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong pairs = new AtomicLong(ROWS);
        Thread writer = Thread.ofVirtual().start(() -> {
            try (Connection c = pg.connect(source); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                while (writing.get()) {
                    long id = pairs.incrementAndGet();
                    s.execute("INSERT INTO a_parent VALUES (" + id + ", 'new')");
                    s.execute("INSERT INTO b_child VALUES (" + id + ", " + id + ", 'new')");
                    c.commit();
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        Path log = dir.resolve("moment.log");
        Process run = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "moment-1");
        try (Connection pair = pg.connect(source); Statement s = pair.createStatement()) {
            // Once both streams are recorded (planning, which reads the tables, is over): the child table held.
            LedgerFixture.waitUntil(run, log, () -> scalar(pg, target, "SELECT count(*) FROM sluice.run_streams "
                    + "WHERE run_id = 'moment-1'") >= 2);
            pair.setAutoCommit(false);
            // Only the writer's one-row transactions can hold the lock up for a moment; a run that holds the table
            // for its snapshot holds it to the end of its copy, so waiting longer for it would only pass time.
            s.execute("SET lock_timeout = '1s'");
            boolean held;
            try {
                s.execute("LOCK TABLE b_child IN ACCESS EXCLUSIVE MODE");
                held = true;
            } catch (SQLException snapshotTaken) {
                pair.rollback(); // the run holds the table for its snapshot already: the pair comes after it
                held = false;
            }
            if (held) {
                // Held before the run read it: the run waits for it. Held after the run read it (it had copied
                // b_child already): the run may end meanwhile, and the pair simply comes after its moment.
                LedgerFixture.waitUntilOrEnded(run, log, () -> scalar(pg, source, "SELECT count(*) FROM pg_locks l "
                        + "JOIN pg_stat_activity a USING (pid) WHERE l.relation = 'b_child'::regclass AND NOT "
                        + "l.granted AND a.application_name LIKE 'sluice%'") > 0);
            }
            s.execute("INSERT INTO a_parent VALUES (-1, 'the pair')");
            s.execute("INSERT INTO b_child VALUES (-1, -1, 'the pair')");
            pair.commit();
        }
        assertTrue(run.waitFor(180, TimeUnit.SECONDS));
        writing.set(false);
        writer.join();
        String out = Files.readString(log);
        assertEquals(0, run.exitValue(), out);
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM b_child c WHERE NOT EXISTS (SELECT 1 FROM a_parent "
                + "p WHERE p.id = c.parent_id)"), "no child without its parent:\n" + out);
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM a_parent p WHERE NOT EXISTS (SELECT 1 FROM b_child "
                + "c WHERE c.parent_id = p.id)"), "no parent without its child:\n" + out);
        assertEquals(1, scalar(pg, target, "SELECT count(DISTINCT snapshot_mode) FROM sluice.run_streams WHERE "
                + "run_id = 'moment-1'"), "one snapshot, recorded for both streams");
    }

    @Test
    void aResumeReadsTheTablesItStillCopiesInOneNewMoment() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("moment_resume_src");
        String target = pg.createDatabase("moment_resume_dst");
        sql(pg, source, "CREATE TABLE x_first (id bigint PRIMARY KEY, note text)",
                "INSERT INTO x_first SELECT g, 'first ' || g FROM generate_series(1, 200000) g",
                "CREATE TABLE y_parent (id bigint PRIMARY KEY, note text)",
                "CREATE TABLE z_child (id bigint PRIMARY KEY, parent_id bigint NOT NULL, note text)",
                "INSERT INTO y_parent SELECT g, 'parent ' || g FROM generate_series(1, " + ROWS + ") g",
                "INSERT INTO z_child SELECT g, g, 'child ' || g FROM generate_series(1, " + ROWS + ") g",
                "ANALYZE");
        Path spec = dir.resolve("resume.yaml");
        Files.writeString(spec, """
                version: 1
                name: one-moment-resume
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: all
                    source: { connection: src, table: "public.*" }
                    target: { connection: dst, table: "public.{table}", create: if-missing }
                    distribution: { method: ctid }
                    degree: 1
                    batch-size: 20000
                    load-mode: truncate
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user()));
        Path log = dir.resolve("resume-1.log");
        Process first = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "again-1");
        LedgerFixture.waitUntil(first, log, () -> scalar(pg, target, "SELECT count(*) FROM sluice.run_partitions "
                + "WHERE run_id = 'again-1' AND state = 'done'") >= 1);
        first.destroyForcibly(); // SIGKILL within the first table: the other two not started
        assertTrue(first.waitFor(30, TimeUnit.SECONDS));
        sql(pg, source, "INSERT INTO y_parent VALUES (-1, 'after the kill')",
                "INSERT INTO z_child VALUES (-1, -1, 'after the kill')");

        // The resume: the pair that would split the two tables lands when it asks for the child table's lock.
        Path resumeLog = dir.resolve("resume-2.log");
        Process resumed = LedgerFixture.startSluice(resumeLog, "run", spec.toString(), "--resume", "again-1");
        try (Connection pair = pg.connect(source); Statement s = pair.createStatement()) {
            // Once the resume copies again (its planning, which reads the tables, is over): the child table held.
            LedgerFixture.waitUntil(resumed, resumeLog, () -> scalar(pg, target, "SELECT count(*) FROM "
                    + "sluice.run_streams WHERE run_id = 'again-1' AND stream LIKE '%x_first' AND starts >= 2") > 0);
            pair.setAutoCommit(false);
            // Only the writer's one-row transactions can hold the lock up for a moment; a run that holds the table
            // for its snapshot holds it to the end of its copy, so waiting longer for it would only pass time.
            s.execute("SET lock_timeout = '1s'");
            boolean held;
            try {
                s.execute("LOCK TABLE z_child IN ACCESS EXCLUSIVE MODE");
                held = true;
            } catch (SQLException snapshotTaken) {
                pair.rollback(); // the resume holds the table for its snapshot already: the pair comes after it
                held = false;
            }
            if (held) {
                LedgerFixture.waitUntil(resumed, resumeLog, () -> scalar(pg, source, "SELECT count(*) FROM pg_locks "
                        + "l JOIN pg_stat_activity a USING (pid) WHERE l.relation = 'z_child'::regclass AND NOT "
                        + "l.granted AND a.application_name LIKE 'sluice%'") > 0);
            }
            s.execute("INSERT INTO y_parent VALUES (-2, 'the pair')");
            s.execute("INSERT INTO z_child VALUES (-2, -2, 'the pair')");
            pair.commit();
        }
        assertTrue(resumed.waitFor(180, TimeUnit.SECONDS));
        String out = Files.readString(resumeLog);
        assertEquals(0, resumed.exitValue(), out);
        assertEquals(1, scalar(pg, target, "SELECT count(*) FROM z_child WHERE id = -1"), "a new moment, after the "
                + "kill:\n" + out);
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM z_child c WHERE NOT EXISTS (SELECT 1 FROM y_parent "
                + "p WHERE p.id = c.parent_id)"), "no child without its parent:\n" + out);
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM y_parent p WHERE NOT EXISTS (SELECT 1 FROM z_child "
                + "c WHERE c.parent_id = p.id)"), "no parent without its child:\n" + out);
        assertEquals(200_000, scalar(pg, target, "SELECT count(*) FROM x_first"), out);
    }

    @Test
    void aStreamThatReadsWhatAnotherWritesTakesItsOwnSnapshotAndNoneIsOptedOut() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("moment_chain");
        sql(pg, db, "CREATE TABLE raw (id bigint PRIMARY KEY)", "CREATE TABLE staged (id bigint PRIMARY KEY)",
                "CREATE TABLE published (id bigint PRIMARY KEY)", "CREATE TABLE other (id bigint PRIMARY KEY)",
                "INSERT INTO raw SELECT generate_series(1, 100)", "INSERT INTO other SELECT generate_series(1, 5)");
        Path spec = dir.resolve("chain.yaml");
        Files.writeString(spec, """
                version: 1
                name: chain
                connections:
                  db: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: stage
                    source: { connection: db, table: raw }
                    target: { connection: db, table: staged }
                    load-mode: truncate
                  - name: publish
                    source: { connection: db, table: staged }
                    target: { connection: db, table: published }
                    load-mode: truncate
                  - name: apart
                    source: { connection: db, table: other }
                    target: { connection: db, table: published_other, create: if-missing }
                    load-mode: truncate
                    consistency: none
                """.formatted(pg.jdbcUrl(db), pg.user()));
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(!plan.out().contains("one snapshot:"), "publish reads what stage writes; apart opted out: "
                + plan.out());
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(100, scalar(pg, db, "SELECT count(*) FROM published"), "publish read what stage loaded");
    }

    @Test
    void moreTablesThanTheServersLockTableHoldsAreRefusedBeforeAnythingIsWrittenSayingWhatToRaise() throws Exception {
        try (TestingPostgres small = TestingPostgres.start(java.util.Map.of("max_locks_per_transaction", "10",
                "max_connections", "30"))) { // 10 x 30: about 300 locks in all
            String source = small.createDatabase("locks_src");
            String target = small.createDatabase("locks_dst");
            sql(small, source, "DO $$ BEGIN FOR i IN 1..320 LOOP EXECUTE format('CREATE TABLE t%s (id int)', i); "
                    + "END LOOP; END $$");
            Path spec = dir.resolve("locks.yaml");
            Files.writeString(spec, """
                    version: 1
                    name: many-locks
                    connections:
                      src: { type: postgres, url: "%s", user: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: all
                        source: { connection: src, table: "public.*" }
                        target: { connection: dst, table: "public.{table}", create: if-missing }
                        load-mode: truncate
                    """.formatted(small.jdbcUrl(source), small.user(), small.jdbcUrl(target), small.user()));
            CliRun run = CliRun.of("run", spec.toString());
            assertEquals(4, run.exitCode(), run.all());
            assertTrue(run.all().contains("error[PG223]") && run.all().contains("locks 320 tables in one transaction")
                    && run.all().contains("raise max_locks_per_transaction on the source to"), run.all());
            assertEquals(0, scalar(small, target, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
                    "nothing created");
        }
    }
}
