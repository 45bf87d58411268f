package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.app.cli.SluiceCommand;
import io.sluice.app.crash.FaultyConnectors.Fault;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Adversarial runs against real servers that used to destroy rows, duplicate them or hang: each must now refuse or
 * wait visibly and fail clearly, and the target's contents are checked exactly afterwards.
 */
class RefuseInsteadOfHangingTest {
    /** A thread per task: the common pool may have one thread on a small machine, and these tasks block. */
    private static final java.util.concurrent.Executor OWN_THREAD = task -> Thread.ofPlatform().daemon().start(task);

    @TempDir
    Path dir;

    @AfterEach
    void disarm() {
        FaultyConnectors.disarm();
    }

    /** Used to exit 143 with nothing printed: SIGTERM while the run still plans. */
    @Test
    void sigtermWhilePlanningExits130AndSaysNothingWasWritten() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "termplan", 1_000);
        Path spec = f.spec("term.yaml", "ctid", 1, 1000, "lock-timeout: 5m");
        try (Connection holder = f.pg.connect(f.source); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("LOCK TABLE items IN ACCESS EXCLUSIVE MODE"); // planning waits for it
            Path log = dir.resolve("term.log");
            Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "term-1");
            LedgerFixture.waitUntil(child, log, () -> f.scalar(f.source, "SELECT count(*) FROM pg_locks l JOIN "
                    + "pg_class c ON c.oid = l.relation WHERE c.relname = 'items' AND NOT l.granted") > 0);
            child.destroy(); // SIGTERM
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
            holder.rollback();
            assertEquals(130, child.exitValue(), Files.readString(log));
            assertTrue(Files.readString(log).contains("interrupted before the run started: nothing was written"),
                    Files.readString(log));
        }
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"));
    }

    /** Used to print nothing for 80 s and more: a ledger table someone holds locked. */
    @Test
    void aLockedLedgerIsWaitedForVisiblyAndAtMostTheLockTimeout() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "lockedledger", 1_000);
        Path spec = f.spec("locked.yaml", "ctid", 1, 1000, "lock-timeout: 3s");
        CliRun first = CliRun.of("run", spec.toString(), "--run-id", "ledger-1");
        assertEquals(0, first.exitCode(), first.all()); // the ledger exists now
        for (String mode : new String[] {"EXCLUSIVE", "ACCESS EXCLUSIVE"}) {
            try (Connection holder = f.pg.connect(f.target); Statement s = holder.createStatement()) {
                holder.setAutoCommit(false);
                s.execute("LOCK TABLE sluice.run_streams IN " + mode + " MODE");
                long started = System.nanoTime();
                CliRun blocked = CliRun.of("run", spec.toString());
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
                holder.rollback();
                assertEquals(1, blocked.exitCode(), mode + ": " + blocked.all());
                assertTrue(blocked.all().contains("error[PG420]") && blocked.all().contains("held by"),
                        mode + ": " + blocked.all());
                assertTrue(seconds < 30, mode + ": gave up after " + seconds + " s, not the 60 s default");
                if (mode.equals("EXCLUSIVE")) { // reads pass, the start's write waits: said while it waits
                    assertTrue(blocked.all().contains("the run ledger"), blocked.all());
                }
            }
        }
        assertEquals(1_000, f.scalar(f.target, "SELECT count(*) FROM items"), "the target as the first run left it");
    }

    /** Used to end "done, 0 rows" at degree 2 (every row destroyed) and to hang at degree 1. */
    @Test
    void sourceAndTargetTheSameTableThroughTwoSpellingsOfOneServerIsRefusedAndLeftIntact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "same", 2_000);
        f.sql(f.target, "INSERT INTO items SELECT g, 'kept ' || g, 1 FROM generate_series(1, 3000) g");
        String url = f.pg.jdbcUrl(f.target);
        String otherSpelling = url.contains("localhost") ? url.replace("localhost", "127.0.0.1")
                : url.replace("127.0.0.1", "localhost");
        Path spec = dir.resolve("same.yaml");
        Files.writeString(spec, """
                version: 1
                name: same-table
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s?ApplicationName=other", user: "%s" }
                streams:
                  - name: items
                    source: { connection: src, table: public.items }
                    target: { connection: dst, table: items }
                    distribution: { method: ctid }
                    degree: 2
                    load-mode: truncate
                """.formatted(url, f.pg.user(), otherSpelling, f.pg.user()));

        for (String degree : new String[] {"2", "1"}) {
            Files.writeString(spec, Files.readString(spec).replaceAll("degree: \\d", "degree: " + degree));
            CliRun run = CliRun.of("run", spec.toString(), "--run-id", "same-" + degree);

            assertEquals(4, run.exitCode(), run.all());
            assertTrue(run.err().contains("error[PLAN001] stream 'items': the source reads the target table "
                    + "\"public\".\"items\" (connections 'src' and 'dst' reach the same database): a load would empty "
                    + "the rows it is about to read"), run.err());
            assertEquals(3_000, f.scalar(f.target, "SELECT count(*) FROM items WHERE name LIKE 'kept %'"));
            assertEquals(3_000, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing truncated, nothing added");
        }
    }

    @Test
    void aSourceQueryThatReadsTheTargetThroughAViewIsRefused() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "sameq", 0);
        f.sql(f.target, "INSERT INTO items VALUES (1, 'kept', 1)", "CREATE VIEW recent AS SELECT * FROM items");
        Path spec = f.spec("sameq.yaml", "none", 1, 1_000);
        Files.writeString(spec, Files.readString(spec)
                .replace("src: { type: postgres, url: \"" + f.pg.jdbcUrl(f.source),
                        "src: { type: postgres, url: \"" + f.pg.jdbcUrl(f.target))
                .replace("source: { connection: src, table: items }",
                        "source: { connection: src, query: \"SELECT * FROM recent WHERE id > 0\" }"));

        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "same-query");

        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.err().contains("error[PLAN001] stream 'items': the source reads the target table "
                + "\"public\".\"items\""), run.err());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items"), "the row is kept, nothing added");
    }

    @Test
    void lintRefusesTheObviousCase() throws Exception {
        Path spec = dir.resolve("obvious.yaml");
        Files.writeString(spec, """
                version: 1
                name: obvious
                connections:
                  db: { type: postgres, url: "jdbc:postgresql://db.example.com/app", user: app }
                streams:
                  - name: items
                    source: { connection: db, table: public.Items }
                    target: { connection: db, table: public.items }
                    load-mode: truncate
                """);

        CliRun lint = CliRun.of("lint", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        assertTrue(lint.out().contains("obvious.yaml:8:13: error[SPEC025] the target in stream 'items' is the table "
                + "its source reads (connection 'db')"), lint.all());
    }

    /** Used to end "done" twice, the target holding 1.5 times the source. */
    @Test
    void aSecondRunOfTheSameTargetWaitsForTheFirstThenFailsNamingIt() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "twice", 4_000);
        Path spec = blockingSpec(f, "truncate", 2, "lock-timeout: 1s");
        FaultyConnectors.arm(Fault.BLOCK, 2);
        CompletableFuture<Integer> first = runInBackground(spec, "first-run");
        FaultyConnectors.awaitBlocked();

        CliRun second = CliRun.of("run", spec.toString(), "--run-id", "second-run");
        FaultyConnectors.release();
        int firstExit = first.get(2, TimeUnit.MINUTES);

        assertEquals(4, second.exitCode(), second.all());
        assertTrue(second.err().matches("(?s).*waiting for ownership of \"public\".\"items\", held by sluice "
                + "r=\\p{XDigit}{8} run=first-run pid=" + ProcessHandle.current().pid() + ".*"), second.err());
        assertTrue(second.err().matches("(?s).*error\\[PG421] stream 'items': gave up after 1 s waiting for "
                + "\"public\".\"items\": another Sluice run is loading it \\(sluice r=\\p{XDigit}{8} "
                + "run=first-run pid=.*"), second.err());
        assertEquals(0, firstExit, "the first run goes on and ends done");
        assertEquals(4_000, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(0, f.differences(), "the target holds the source once");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM sluice.run_streams WHERE run_id = 'second-run' "
                + "AND truncated_at IS NOT NULL"), "the second run truncated nothing");
    }

    /**
     * Used to read an empty table through the snapshot after the TRUNCATE, ending "done" with rows missing. Now the
     * TRUNCATE waits for the run's ACCESS SHARE lock; queued, it holds up the next partition's read, which says so
     * and fails after the lock-timeout naming it (as pg_dump fails): no partition reads the emptied table.
     */
    @Test
    void aTruncateOfTheSourceDuringTheRunWaitsAndNoPartitionReadsTheEmptiedTable() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "srctrunc", 4_000);
        Path spec = blockingSpec(f, "append", 1, "lock-timeout: 1s");
        FaultyConnectors.arm(Fault.BLOCK, 2);
        CompletableFuture<Integer> run = runInBackground(spec, "src-trunc");
        FaultyConnectors.awaitBlocked();

        CompletableFuture<Integer> truncate = CompletableFuture.supplyAsync(() -> {
            try (Connection c = f.pg.connect(f.source); Statement s = c.createStatement()) {
                s.execute("SET application_name = 'cleanup job'");
                s.execute("TRUNCATE items");
                return c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, OWN_THREAD);
        awaitWaitingOnALock(f, f.source, "TRUNCATE items", truncate);
        assertFalse(truncate.isDone(), "the TRUNCATE waits for the run's ACCESS SHARE lock");
        FaultyConnectors.release();

        assertEquals(1, run.get(2, TimeUnit.MINUTES), "the run fails, it does not end done");
        truncate.get(2, TimeUnit.MINUTES);
        long copied = f.scalar(f.target, "SELECT count(*) FROM items");
        assertTrue(copied > 0 && copied < 4_000, "the partitions read before the TRUNCATE queued: " + copied);
        assertEquals(copied, f.scalar(f.target, "SELECT sum(row_count) FROM sluice.run_partitions WHERE run_id = "
                + "'src-trunc' AND state = 'done'"), "each of them whole, as the ledger records");
        assertEquals(copied, f.scalar(f.target, "SELECT count(DISTINCT id) FROM items"));
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_attempts WHERE run_id = 'src-trunc' "
                + "AND error_code = 'PG420' AND message LIKE '%waiting to lock \"public\".\"items\" in ACCESS SHARE mode'"
                + " || ' to read it: held by pid % (queued for ACCESS EXCLUSIVE%application ''cleanup job''%'"),
                "the failed read names the queued TRUNCATE");
        assertEquals(0, f.scalar(f.source, "SELECT count(*) FROM items"), "and the TRUNCATE ran after the run");
    }

    /** A session holding the target (LOCK TABLE, a long transaction) used to hold the load up forever, silently. */
    @Test
    void aLoadHeldUpByALockSaysSoThenFailsAfterTheLockTimeoutNamingTheHolder() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "held", 2_000);
        Path spec = f.spec("held.yaml", "range", 1, 1_000, "lock-timeout: 1s");
        Files.writeString(spec, Files.readString(spec).replace("load-mode: truncate", "load-mode: append"));
        try (Connection holder = f.pg.connect(f.target); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("SET application_name = 'nightly report'");
            s.execute("LOCK TABLE items IN SHARE MODE");
            int pid = holder.unwrap(org.postgresql.PGConnection.class).getBackendPID();

            CliRun run = CliRun.of("run", spec.toString(), "--run-id", "held-append");

            assertEquals(1, run.exitCode(), run.all());
            assertTrue(run.err().contains("waiting for lock on \"public\".\"items\" (ROW EXCLUSIVE, to load it), held "
                    + "by pid " + pid + " (holds SHARE, user "), run.err());
            assertTrue(run.err().contains("error[PG420]"), run.err());
            assertTrue(run.err().contains("gave up after 1 s waiting to lock \"public\".\"items\" in ROW EXCLUSIVE "
                    + "mode to load it: held by pid " + pid + " (holds SHARE, user "), run.err());
            assertTrue(run.err().contains("application 'nightly report'"), run.err());
            holder.rollback();
        }
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing half-written");
    }

    @Test
    void aTruncateHeldUpByAReaderFailsBeforeWritingAnything() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "heldtr", 2_000);
        f.sql(f.target, "INSERT INTO items VALUES (-1, 'old', 1)");
        Path spec = f.spec("heldtr.yaml", "range", 2, 1_000, "lock-timeout: 1s");
        try (Connection holder = f.pg.connect(f.target); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.executeQuery("SELECT count(*) FROM items").close(); // ACCESS SHARE until the transaction ends
            int pid = holder.unwrap(org.postgresql.PGConnection.class).getBackendPID();

            CliRun run = CliRun.of("run", spec.toString(), "--run-id", "held-truncate");

            assertEquals(4, run.exitCode(), run.all());
            assertTrue(run.err().contains("gave up after 1 s waiting to lock \"public\".\"items\" in ACCESS "
                    + "EXCLUSIVE mode to empty it: held by pid " + pid + " (holds ACCESS SHARE"), run.err());
            holder.rollback();
        }
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items WHERE id = -1"), "the old row is there");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items"), "and nothing else");
    }

    /** LOCK TABLE refuses materialized views (and foreign tables): such a source is read without the session lock. */
    @Test
    void aMaterializedViewSourceLoadsAsBefore() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "matview", 3_000);
        f.sql(f.source, "CREATE MATERIALIZED VIEW items_mv AS SELECT * FROM items");
        Path spec = f.spec("mv.yaml", "ctid", 2, 1_000);
        Files.writeString(spec, Files.readString(spec).replace("source: { connection: src, table: items }",
                "source: { connection: src, query: \"SELECT * FROM items_mv\" }").replace("method: ctid", "method: none"));

        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "from-matview");

        assertEquals(0, run.exitCode(), run.all());
        assertEquals(0, f.differences(), "the target holds the source once");
    }

    private Path blockingSpec(LedgerFixture f, String loadMode, int degree, String... extra) throws Exception {
        Path spec = f.spec("items.yaml", "range", degree, 1_000, extra);
        Files.writeString(spec, Files.readString(spec)
                .replace("src: { type: postgres", "src: { type: faulty-postgres")
                .replace("load-mode: truncate", "load-mode: " + loadMode));
        return spec;
    }

    /** A run on another thread, writing to its own buffers (CliRun owns System.out and System.err meanwhile). */
    private static CompletableFuture<Integer> runInBackground(Path spec, String runId) {
        return CompletableFuture.supplyAsync(() -> {
            StringWriter out = new StringWriter();
            try {
                return SluiceCommand.commandLine(CommandLine.defaultFactory()).setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(out, true)).execute("run", spec.toString(), "--run-id", runId);
            } finally {
                System.out.println("background run " + runId + ":\n" + out); // in the test's report
            }
        }, OWN_THREAD);
    }

    /** Until a backend of {@code database} running {@code query} waits on a lock (a condition, not a duration). */
    private static void awaitWaitingOnALock(LedgerFixture f, String database, String query,
                                            CompletableFuture<?> statement) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        try (Connection c = f.pg.connect(database); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                        + "'Lock' AND query = '" + query + "'")) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
            StringBuilder seen = new StringBuilder();
            try (ResultSet rs = s.executeQuery("SELECT pid, datname, state, wait_event_type, query FROM "
                    + "pg_stat_activity WHERE backend_type = 'client backend'")) {
                while (rs.next()) {
                    seen.append('\n').append(rs.getInt(1)).append(' ').append(rs.getString(2)).append(' ')
                            .append(rs.getString(3)).append(' ').append(rs.getString(4)).append(' ')
                            .append(rs.getString(5));
                }
            }
            throw new AssertionError("no backend waits on a lock running " + query + " (it "
                    + (statement.isDone() ? "ended: " + statement.handle((v, e) -> e == null ? v : e).join()
                    : "runs") + "); backends:" + seen);
        }
    }
}
