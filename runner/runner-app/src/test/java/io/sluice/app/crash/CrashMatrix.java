package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.testkit.TestTier;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The crash matrix: every load mode x {Sluice SIGKILL, target immediate shutdown and restart, source restart} x {early,
 * middle, at the last step} x {--resume, a fresh run}. Afterwards the target is what the spec promised (its rows
 * exactly, its indexes as they were), nothing is left behind, and every exit code told the truth: a run that ended 0
 * had already loaded it all. Source and target are servers of the test's own, so each can fail alone. Moments come
 * from the target's state (the ledger, locks, the table's size) read while the run is stopped (SIGSTOP), never from
 * sleeps; the last step of a replace, a delete-missing, an index rebuild and a created table's primary key is held by a
 * lock the test takes.
 *
 * <p>The modes are split in two classes, {@link CrashMatrixCopyTest} and {@link CrashMatrixRewriteTest}, so that the
 * two test JVMs share the matrix (each class has servers of its own).
 */
@Tag(TestTier.SAMPLED)
abstract class CrashMatrix {
    private static final int ROWS = 120_000;
    /** Cells the quick tier runs of each class's 90 or more. */
    private static final int QUICK_CASES = 6;
    private static TestingPostgres sourceServer;
    private static TestingPostgres targetServer;

    @TempDir
    static Path dir;

    enum Failure { SIGKILL, TARGET_CRASH, SOURCE_RESTART }

    enum Moment { EARLY, MIDDLE, LAST }

    enum Recovery { RESUME, FRESH }

    enum Mode {
        APPEND("load-mode: append", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000"),
        TRUNCATE_ONE_TRANSACTION("load-mode: truncate", "degree: 1"), // one COPY
        TRUNCATE("load-mode: truncate", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000"),
        REPLACE("load-mode: replace", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000"),
        MERGE("load-mode: merge", "distribution: { method: range, key: id }", "degree: 2", "batch-size: 10000"),
        MERGE_DELETE_MISSING("load-mode: merge", "delete-missing: true", "distribution: { method: range, key: id }",
                "degree: 2", "batch-size: 10000"),
        INDEX_REBUILD("load-mode: truncate", "indexes: rebuild", "distribution: { method: ctid }", "degree: 2",
                "batch-size: 10000"),
        INCREMENTAL_APPEND("load-mode: append", "incremental: { cursor: id }",
                "distribution: { method: range, key: id }", "degree: 2", "batch-size: 10000"),
        INCREMENTAL_MERGE("load-mode: merge", "incremental: { cursor: id }",
                "distribution: { method: range, key: id }", "degree: 2", "batch-size: 10000"),
        PATTERN("load-mode: truncate", "distribution: { method: ctid }", "degree: 1", "batch-size: 10000"),
        /** A table the run creates, its {@code primary-key:} added after the last partition (the step held). */
        CREATED_KEY("load-mode: truncate", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000"),
        /** A table the run creates with the source's definition: its key and index built after the load (held). */
        CREATED_FULL("load-mode: append", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000");

        final List<String> lines;

        Mode(String... lines) {
            this.lines = List.of(lines);
        }

        boolean incremental() {
            return this == INCREMENTAL_APPEND || this == INCREMENTAL_MERGE;
        }

        /** A fresh run over an unfinished run of this mode that committed rows is refused (RESUME008). */
        boolean appends() {
            return this == APPEND || this == INCREMENTAL_APPEND || this == CREATED_FULL;
        }

        boolean creates() {
            return this == CREATED_KEY || this == CREATED_FULL;
        }

        List<String> tables() {
            return this == PATTERN ? List.of("t1", "t2", "t3") : List.of("items");
        }

        /** Target options beside the table. */
        String target() {
            return switch (this) {
                case CREATED_KEY -> ", create: if-missing, definition: bare, primary-key: [id]";
                case CREATED_FULL -> ", create: if-missing";
                default -> "";
            };
        }
    }

    @BeforeAll
    static void servers() {
        sourceServer = TestingPostgres.start();
        targetServer = TestingPostgres.start();
    }

    @AfterAll
    static void stopServers() {
        if (sourceServer != null) {
            sourceServer.close();
        }
        if (targetServer != null) {
            targetServer.close();
        }
    }

    /** The class's rows of the matrix. */
    abstract List<Mode> modes();

    /**
     * Every cell with {@code -Pfull}; the quick tier runs {@value #QUICK_CASES} cells of each class (one a mode, if more) that cover each
     * of its modes and every failure, moment and recovery, and as many of their pairs as fit ({@link
     * TestTier#select}). One cell alone, or one mode's row: {@code -Dtest='CrashMatrix*' "-Dsluice.case=REPLACE /
     * SIGKILL / LAST / FRESH"} (or {@code -Dsluice.case=REPLACE}).
     */
    @TestFactory
    Stream<DynamicTest> everyModeSurvivesEveryFailureAtEveryMomentWithEitherRecovery() {
        return TestTier.matrix(Math.max(QUICK_CASES, modes().size()), List.of(modes(), List.of(Failure.values()), List.of(Moment.values()),
                List.of(Recovery.values())), cell -> new Case((Mode) cell.get(0), (Failure) cell.get(1),
                (Moment) cell.get(2), (Recovery) cell.get(3)).run());
    }

    /** One cell of the matrix, on databases of its own (dropped at the end). */
    private static final class Case {
        private final Mode mode;
        private final Failure failure;
        private final Moment moment;
        private final Recovery recovery;
        private final String source;
        private final String target;
        private final String runId;
        private final List<Connection> holds = new ArrayList<>();
        /** The connection the looks at the target run on while the run is stopped, kept open between them. */
        private Connection looks;

        Case(Mode mode, Failure failure, Moment moment, Recovery recovery) {
            this.mode = mode;
            this.failure = failure;
            this.moment = moment;
            this.recovery = recovery;
            String name = (mode.name() + "_" + failure.name().charAt(0) + moment.name().charAt(0)
                    + recovery.name().charAt(0)).toLowerCase(java.util.Locale.ROOT);
            this.source = sourceServer.createDatabase("cm_" + name);
            this.target = targetServer.createDatabase("cm_" + name);
            this.runId = "crash-1";
        }

        void run() throws Exception {
            try {
                prepare();
                Path spec = spec();
                List<String> indexesBefore = indexes();
                if (mode.incremental()) {
                    // A first window loaded, then new rows: the run that fails reads the second window.
                    CliRun first = CliRun.of("run", spec.toString(), "--run-id", "crash-0");
                    assertEquals(0, first.exitCode(), first.all());
                    sql(sourceServer, source, "INSERT INTO items SELECT g, 'new ' || g, g / 7.0 FROM "
                            + "generate_series(" + (ROWS + 1) + ", " + (2 * ROWS) + ") g");
                }
                Path log = dir.resolve(target + ".log");
                Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", runId);
                stopAt(child, log);
                closeLooks();
                inflict(child);
                releaseHolds();
                assertTrue(child.waitFor(180, TimeUnit.SECONDS), "the run ended after the failure");
                int exit = child.exitValue();
                String out = Files.readString(log);
                if (failure != Failure.SIGKILL && exit == 0) {
                    // It rode the failure out: exit 0 must mean the target is complete now.
                    assertComplete(indexesBefore, "the run that ended 0 despite the failure:\n" + out);
                    if ((mode == Mode.APPEND || mode == Mode.CREATED_FULL) && recovery == Recovery.FRESH) {
                        return; // nothing to recover: a fresh append after a done one appends again, by design
                    }
                } else if (failure != Failure.SIGKILL) {
                    assertEquals(1, exit, "a run that failed exits 1:\n" + out);
                }
                recover(spec);
                assertComplete(indexesBefore, "after " + recovery);
            } finally {
                closeLooks();
                releaseHolds();
                drop(sourceServer, source);
                drop(targetServer, target);
            }
        }

        private void prepare() throws SQLException {
            for (String table : mode.tables()) {
                sql(sourceServer, source, "CREATE TABLE " + table + " (id bigint PRIMARY KEY, name text, price "
                        + "numeric(10,2))", "INSERT INTO " + table + " SELECT g, 'item ' || g, g / 7.0 FROM "
                        + "generate_series(1, " + (mode == Mode.PATTERN ? ROWS / 3 : ROWS) + ") g", "ANALYZE " + table);
                if (mode == Mode.CREATED_FULL) {
                    sql(sourceServer, source, "CREATE INDEX items_name ON items (name)");
                } else if (mode != Mode.CREATED_KEY) {
                    sql(targetServer, target, "CREATE TABLE " + table + " (id bigint, name text, price "
                            + "numeric(10,2))");
                }
            }
            switch (mode) {
                case TRUNCATE_ONE_TRANSACTION, TRUNCATE -> sql(targetServer, target,
                        "INSERT INTO items SELECT g, 'old', 0 FROM generate_series(1, 500) g");
                case REPLACE -> sql(targetServer, target, "INSERT INTO items SELECT g, 'old', 0 FROM "
                        + "generate_series(1, 500) g", "ALTER TABLE items ADD PRIMARY KEY (id)",
                        "CREATE INDEX items_name ON items (name)");
                case MERGE -> sql(targetServer, target, "ALTER TABLE items ADD PRIMARY KEY (id)",
                        "INSERT INTO items SELECT g, 'kept', 0 FROM generate_series(" + (ROWS + 1) + ", "
                                + (ROWS + 700) + ") g", "INSERT INTO items SELECT g, 'stale', 0 FROM "
                                + "generate_series(1, 300) g");
                case MERGE_DELETE_MISSING -> sql(targetServer, target, "ALTER TABLE items ADD PRIMARY KEY (id)",
                        "INSERT INTO items SELECT g, 'gone', 0 FROM generate_series(" + (ROWS + 1) + ", "
                                + (ROWS + 700) + ") g");
                case INDEX_REBUILD -> sql(targetServer, target, "INSERT INTO items SELECT g, 'old', 0 FROM "
                        + "generate_series(1, 500) g", "ALTER TABLE items ADD PRIMARY KEY (id)",
                        "CREATE INDEX items_name ON items (name)", "CREATE INDEX items_price ON items (price)");
                case INCREMENTAL_MERGE -> sql(targetServer, target, "ALTER TABLE items ADD PRIMARY KEY (id)");
                default -> {
                }
            }
            if (mode == Mode.REPLACE) {
                hold("items"); // from the start: a reader's lock, which the swap (and only it) waits for
            }
            if (mode.creates() && moment == Moment.LAST) {
                // The table does not exist before the run: the first step after the copy (the key's ALTER TABLE, an
                // index's CREATE INDEX) waits in an event trigger for an advisory lock the test holds.
                sql(targetServer, target, "CREATE FUNCTION hold_key() RETURNS event_trigger LANGUAGE plpgsql AS $$ "
                        + "BEGIN IF current_query() LIKE '%PRIMARY KEY%' OR current_query() LIKE '%CREATE%INDEX%' "
                        + "THEN PERFORM pg_advisory_lock(55); PERFORM pg_advisory_unlock(55); END IF; END $$",
                        "CREATE EVENT TRIGGER hold_key ON ddl_command_start WHEN TAG IN ('ALTER TABLE', "
                                + "'CREATE INDEX') EXECUTE FUNCTION hold_key()");
                Connection c = targetServer.connect(target);
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_advisory_lock(55)");
                }
                holds.add(c);
            }
        }

        private Path spec() throws Exception {
            boolean pattern = mode == Mode.PATTERN;
            String yaml = """
                    version: 1
                    name: %s
                    max-parallel-streams: 1
                    connections:
                      src: { type: postgres, url: "%s", user: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: items
                        source: { connection: src, table: %s }
                        target: { connection: dst, table: %s%s }
                        lock-timeout: 2m
                        retry: { max-attempts: 2, initial-backoff: 200ms }
                    """.formatted("matrix-" + target, sourceServer.jdbcUrl(source), sourceServer.user(),
                    targetServer.jdbcUrl(target), targetServer.user(), pattern ? "\"public.t*\"" : "items",
                    pattern ? "\"public.{table}\"" : "items", mode.target())
                    + String.join("", mode.lines.stream().map(l -> "    " + l + "\n").toList());
            Path spec = dir.resolve(target + ".yaml");
            Files.writeString(spec, yaml);
            return spec;
        }

        /** Stops the run (SIGSTOP) at the moment: it cannot move on between the look and the failure. */
        private void stopAt(Process child, Path log) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < deadline) {
                if (!child.isAlive()) {
                    throw new AssertionError("the run ended before the moment " + moment + " (exit "
                            + child.exitValue() + "):\n" + Files.readString(log));
                }
                takeLastStepHoldWhenDue();
                signal(child, "STOP");
                boolean there;
                try {
                    there = reached();
                } catch (SQLException notYet) {
                    there = false; // the ledger does not exist yet
                }
                if (there) {
                    return;
                }
                signal(child, "CONT");
                Thread.sleep(3); // polling for a state, not timing anything
            }
            throw new AssertionError("the run never reached " + moment + ":\n" + Files.readString(log));
        }

        /**
         * A look at the target while the run may be stopped holding locks: it waits for none (a lock the stopped run
         * holds would wait forever), so a look that would wait counts as "not there yet".
         */
        private long check(String query) throws SQLException {
            // One connection for every look: a connection of its own per look took longer than the run was let go
            // between two looks, and reaching a moment took seconds.
            if (looks == null) {
                looks = targetServer.connect(target);
                try (Statement s = looks.createStatement()) {
                    s.execute("SET lock_timeout = '100ms'");
                }
            }
            try (Statement s = looks.createStatement(); ResultSet rs = s.executeQuery(query)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        private void closeLooks() {
            if (looks != null) {
                try {
                    looks.close();
                } catch (SQLException ignored) {
                    // a connection to a server that went down is closed already
                }
                looks = null;
            }
        }

        /** The locks that hold a delete-missing and an index rebuild at their last step, taken once it is safe. */
        private void takeLastStepHoldWhenDue() throws SQLException {
            if (moment != Moment.LAST || !holds.isEmpty()) {
                return;
            }
            try {
                if (mode == Mode.MERGE_DELETE_MISSING
                        && check("SELECT count(*) FROM pg_class WHERE relname = 'items_sluice_keys'") > 0) {
                    hold("items_sluice_keys"); // the DELETE runs, the DROP of the keys table waits
                }
                if (mode == Mode.INDEX_REBUILD && check("SELECT count(*) FROM sluice.run_marks m "
                        + "JOIN sluice.run_streams s USING (run_id, stream) WHERE m.run_id = '" + runId + "' AND "
                        + "m.name = 'target.indexes.dropped' AND s.truncated_at IS NOT NULL") > 0) {
                    hold("items"); // the indexes build, the primary key's ALTER TABLE waits
                }
            } catch (SQLException notYet) {
                // no ledger yet
            }
        }

        private boolean reached() throws SQLException {
            if (mode == Mode.TRUNCATE_ONE_TRANSACTION) {
                // One transaction holding the table: until it commits nothing is done and everything rolls back, so
                // early, middle and late are one moment, "its transaction has emptied the table and not committed"
                // (the table's ACCESS EXCLUSIVE lock granted, from its TRUNCATE to its commit, or its COPY under way:
                // views that take no lock). The whole COPY lasts a fraction of a second, too short to aim inside, and
                // a look at its progress alone once missed it (1 case in about 250).
                return check("SELECT (SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE "
                        + "c.relname = 'items' AND l.mode = 'AccessExclusiveLock' AND l.granted AND l.database = "
                        + "(SELECT oid FROM pg_database WHERE datname = current_database())) + (SELECT "
                        + "coalesce(max(tuples_processed), 0) FROM pg_stat_progress_copy WHERE datname = "
                        + "current_database() AND command = 'COPY FROM')") > 0;
            }
            if (moment == Moment.LAST && mode.creates()) {
                return check("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND "
                        + "database = (SELECT oid FROM pg_database WHERE datname = current_database())") > 0;
            }
            if (moment == Moment.LAST && (mode == Mode.REPLACE || mode == Mode.MERGE_DELETE_MISSING
                    || mode == Mode.INDEX_REBUILD)) {
                String relation = mode == Mode.MERGE_DELETE_MISSING ? "items_sluice_keys" : "items";
                return check("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = "
                        + "l.relation WHERE c.relname = '" + relation + "' AND l.mode = 'AccessExclusiveLock' AND NOT "
                        + "l.granted") > 0;
            }
            long planned = check("SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId + "'");
            long done = check("SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId
                    + "' AND state = 'done'");
            if (planned == 0) {
                return false;
            }
            return switch (moment) {
                case EARLY -> done >= 1;
                case MIDDLE -> done * 2 >= planned;
                case LAST -> done * 3 >= planned * 2; // the last partitions: no step follows them in this mode
            };
        }

        private void inflict(Process child) throws Exception {
            switch (failure) {
                case SIGKILL -> {
                    child.destroyForcibly();
                    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                }
                case TARGET_CRASH -> {
                    targetServer.crash();
                    releaseHolds(); // their sessions died with the server
                    targetServer.restart();
                    signal(child, "CONT");
                }
                case SOURCE_RESTART -> {
                    sourceServer.crash();
                    sourceServer.restart();
                    signal(child, "CONT");
                }
            }
        }

        private void recover(Path spec) throws Exception {
            if (recovery == Recovery.RESUME) {
                CliRun resumed = CliRun.of("run", spec.toString(), "--resume", runId);
                assertEquals(0, resumed.exitCode(), resumed.all());
                return;
            }
            CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "crash-2");
            if (fresh.exitCode() == 4 && fresh.all().contains("error[RESUME008]")) {
                assertTrue(mode.appends(), "only an append refuses a fresh run over an unfinished one: " + fresh.all());
                CliRun resumed = CliRun.of("run", spec.toString(), "--resume", runId);
                assertEquals(0, resumed.exitCode(), resumed.all());
                return;
            }
            assertEquals(0, fresh.exitCode(), fresh.all());
        }

        /** The target as the spec promises it, its indexes as before, nothing of Sluice's left beside it. */
        private void assertComplete(List<String> indexesBefore, String when) throws Exception {
            for (String table : mode.tables()) {
                String expected = switch (mode) {
                    case MERGE -> "SELECT id, name, price FROM source_rows UNION ALL SELECT g, 'kept', 0 FROM "
                            + "generate_series(" + (ROWS + 1) + ", " + (ROWS + 700) + ") g";
                    default -> "SELECT id, name, price FROM source_rows";
                };
                assertEquals(0, differences(table, expected), when + ": " + table + " holds the source's rows once");
            }
            if (mode == Mode.REPLACE || mode == Mode.INDEX_REBUILD) {
                assertEquals(indexesBefore, indexes(), when + ": every index back");
            }
            if (mode == Mode.CREATED_KEY) {
                assertEquals(List.of("CREATE UNIQUE INDEX items_pkey ON public.items USING btree (id)"), indexes(),
                        when + ": the created table has its primary key");
            }
            if (mode == Mode.CREATED_FULL) {
                assertEquals(List.of("CREATE INDEX items_name ON public.items USING btree (name)",
                        "CREATE UNIQUE INDEX items_pkey ON public.items USING btree (id)"), indexes(),
                        when + ": the created table has the source's key and index");
            }
            assertEquals(0, scalar(targetServer, target, "SELECT count(*) FROM pg_class WHERE relname LIKE "
                    + "'%sluice_%' AND relnamespace = 'public'::regnamespace"), when + ": nothing left behind");
        }

        /** Rows in {@code table} of the target against {@code expected} over the source's rows, both ways. */
        private long differences(String table, String expected) throws Exception {
            sql(targetServer, target, "DROP TABLE IF EXISTS source_rows", "CREATE TABLE source_rows (id bigint, "
                    + "name text, price numeric(10,2))");
            try (Connection src = sourceServer.connect(source); Connection dst = targetServer.connect(target)) {
                java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
                src.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut("COPY " + table + " TO STDOUT",
                        buffer);
                dst.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyIn("COPY source_rows FROM STDIN",
                        new java.io.ByteArrayInputStream(buffer.toByteArray()));
            }
            String rows = "SELECT * FROM (" + expected + ") e";
            long difference = scalar(targetServer, target, "SELECT (SELECT count(*) FROM (SELECT id, name, price "
                    + "FROM " + table + " EXCEPT ALL " + rows + ") a) + (SELECT count(*) FROM (" + rows
                    + " EXCEPT ALL SELECT id, name, price FROM " + table + ") b)");
            sql(targetServer, target, "DROP TABLE source_rows");
            return difference;
        }

        private List<String> indexes() throws SQLException {
            List<String> found = new ArrayList<>();
            try (Connection c = targetServer.connect(target); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = "
                         + "'items'::regclass ORDER BY 1")) {
                while (rs.next()) {
                    found.add(rs.getString(1));
                }
            } catch (SQLException e) {
                if (!"42P01".equals(e.getSQLState())) {
                    throw e;
                }
            }
            return found;
        }

        /** A session holding ACCESS SHARE on {@code relation} in an open transaction, until released. */
        private void hold(String relation) throws SQLException {
            Connection c = targetServer.connect(target);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL lock_timeout = '2s'"); // never behind a lock of a stopped run for long
                s.execute("LOCK TABLE " + relation + " IN ACCESS SHARE MODE");
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            holds.add(c);
        }

        private void releaseHolds() {
            for (Connection c : holds) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // a crashed server took the session already
                }
            }
            holds.clear();
        }
    }

    private static void signal(Process process, String signal) throws Exception {
        io.sluice.app.Signals.send(process, signal);
    }

    private static void drop(TestingPostgres server, String database) {
        try {
            sql(server, "postgres", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException | RuntimeException ignored) {
            // a server that is down now is restarted by the next case's failure or dropped with the class
        }
    }
}
