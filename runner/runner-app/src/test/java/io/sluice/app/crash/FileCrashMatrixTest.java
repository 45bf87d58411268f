package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The file source under the trust issue's crash matrix: {new-files append, truncate} x {a file rewritten (one loaded,
 * one not yet), added, deleted, corrupted} x {while the run waits, then SIGKILL; while the run waits, then it goes
 * on} x {--resume, a fresh run}. Each version of each file holds ids of its own ({@code file * 10^7 + version * 10^5
 * + row}), so the target shows which versions it holds: each one whole or not at all, never twice, the current ones
 * after a further run, and a new-files run after that loads nothing again. The run is held after two partitions (a
 * statement trigger makes the third COPY wait for an advisory lock the test holds), so the change lands at a known
 * point, without sleeps;
 * truncate runs at degree 2 (at degree 1 it is one transaction, with no partition done before its commit).
 */
@Tag(TestTier.SAMPLED)
class FileCrashMatrixTest {
    private static final int FILES = 8;
    private static final int ROWS = 20_000;
    /** Cells the quick tier runs (of 32). */
    private static final int QUICK_CASES = 6;

    @TempDir
    Path dir;

    enum Mode { NEW_FILES, TRUNCATE }

    enum Change { REWRITE, ADD, DELETE, CORRUPT }

    enum Then { KILL, GO_ON }

    enum Recovery { RESUME, FRESH }

    /**
     * Every cell with {@code -Pfull}; the quick tier runs {@value #QUICK_CASES} that cover every mode, change, then and
     * recovery and as many pairs as fit. One alone: {@code -Dtest=FileCrashMatrixTest "-Dsluice.case=TRUNCATE /
     * CORRUPT / KILL / FRESH"}.
     */
    @TestFactory
    Stream<DynamicTest> eachFileLoadsOnceInTheVersionItWasReadWhateverHappensToTheFiles() {
        return TestTier.matrix(QUICK_CASES, List.of(List.of(Mode.values()), List.of(Change.values()),
                List.of(Then.values()), List.of(Recovery.values())), cell -> new Case((Mode) cell.get(0),
                (Change) cell.get(1), (Then) cell.get(2), (Recovery) cell.get(3)).run());
    }

    private final class Case {
        private final Mode mode;
        private final Change change;
        private final Then then;
        private final Recovery recovery;
        private final String name;
        /** The case's own folder: the dynamic tests of one factory share the test's temporary directory. */
        private final Path home;
        private final Path landing;
        /** Rows of each version written, by file then version. */
        private final Map<Integer, Map<Integer, Integer>> versions = new TreeMap<>();
        /** The version each file has now; absent: the file is gone or corrupt. */
        private final Map<Integer, Integer> current = new TreeMap<>();
        private LedgerFixture f;

        Case(Mode mode, Change change, Then then, Recovery recovery) throws Exception {
            this.mode = mode;
            this.change = change;
            this.then = then;
            this.recovery = recovery;
            this.name = (mode.name().charAt(0) + "" + change.name().charAt(0) + then.name().charAt(0)
                    + recovery.name().charAt(0)).toLowerCase(java.util.Locale.ROOT);
            this.home = Files.createDirectories(dir.resolve(name));
            this.landing = Files.createDirectories(home.resolve("landing"));
        }

        void run() throws Exception {
            f = new LedgerFixture(home, "fcm_" + name, 1);
            // The hold: the third COPY into the table (and each after it) waits at its start for an advisory lock
            // the test holds, so exactly two partitions are done when the change lands, however slow the test is to
            // look (taking a table lock after seeing two done raced with the partitions after them).
            f.sql(f.target, "TRUNCATE items", "CREATE SEQUENCE fcm_copies",
                    "CREATE FUNCTION fcm_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                            + "IF nextval('fcm_copies') > 2 THEN PERFORM pg_advisory_xact_lock_shared(4242, 4242); "
                            + "END IF; RETURN NULL; END $$",
                    "CREATE TRIGGER fcm_hold BEFORE INSERT ON items FOR EACH STATEMENT EXECUTE FUNCTION fcm_hold()");
            for (int file = 1; file <= FILES; file++) {
                write(file, 1, ROWS);
            }
            Path spec = spec();
            Path log = home.resolve("first.log");
            Path summary = home.resolve("summary.json");
            Connection hold = f.pg.connect(f.target);
            try (Statement s = hold.createStatement()) {
                s.execute("SELECT pg_advisory_lock(4242, 4242)"); // held until this session ends
            }
            Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "fc-1",
                    "--summary-json", summary.toString());
            int exit;
            try {
                LedgerFixture.waitUntil(child, log, () -> f.donePartitions("fc-1") >= 2);
                assertEquals(2, f.donePartitions("fc-1"), "held after two partitions, before the last");
                inflict();
                if (then == Then.KILL) {
                    child.destroyForcibly();
                    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                }
            } finally {
                hold.close();
            }
            assertTrue(child.waitFor(180, TimeUnit.SECONDS), "the run ended");
            exit = child.exitValue();
            String out = Files.readString(log);
            if (then == Then.GO_ON) {
                assertTrue(exit == 0 || exit == 1, "done or failed, nothing else:\n" + out);
                if (exit == 1) {
                    assertTrue(out.contains("error[DUCK122]") || out.contains("error[DUCK101]")
                            || out.contains("error[DUCK103]") || out.contains("error[DUCK300]"), out);
                    // Rows were committed before it failed: no kind that promises nothing was written.
                    String json = Files.readString(summary);
                    assertTrue(!json.contains("\"preflight\"") && !json.contains("\"invalid-spec\""), json);
                }
                assertWhole("after the run that went on");
            }
            recover(spec, exit);
            assertWhole("after " + recovery);
            if (change == Change.DELETE && mode == Mode.NEW_FILES) {
                // The gone file comes back as it was (same size, same time): never loaded, so the next run loads it.
                Path kept = home.resolve("kept.parquet");
                Files.move(kept, file(FILES));
                current.put(FILES, 1);
            }
            CliRun later = CliRun.of("run", spec.toString(), "--run-id", "fc-3");
            assertEquals(0, later.exitCode(), later.all());
            assertWhole("after a further run");
            assertCurrent();
            if (mode == Mode.NEW_FILES) {
                long rows = f.scalar(f.target, "SELECT count(*) FROM items");
                CliRun again = CliRun.of("run", spec.toString(), "--run-id", "fc-4");
                assertEquals(0, again.exitCode(), again.all());
                assertEquals(rows, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing loaded again:\n"
                        + again.all());
            }
        }

        /** The change, made while the run is held between two partitions. */
        private void inflict() throws Exception {
            switch (change) {
                case REWRITE -> {
                    write(1, 2, ROWS - 5_000); // loaded already
                    write(FILES, 2, ROWS - 5_000); // not read yet
                }
                case ADD -> write(FILES + 1, 1, ROWS);
                case DELETE -> {
                    Path kept = home.resolve("kept.parquet");
                    Files.copy(file(FILES), kept);
                    Files.setLastModifiedTime(kept, Files.getLastModifiedTime(file(FILES)));
                    Files.delete(file(FILES));
                    current.remove(FILES);
                }
                case CORRUPT -> {
                    Files.write(file(FILES), new byte[] {'P', 'A', 'R', '1', 0, 1, 2, 3, 'n', 'o', 't'});
                    current.remove(FILES);
                }
            }
        }

        /**
         * As an operator would, following each error's fix: resume (or start afresh, and resume when a fresh run is
         * refused over the unfinished append); a resume that cannot restore a truncate's partitions says to start
         * afresh; a file a run cannot read (corrupt) is put back, as a new upload, and it is tried again.
         */
        private void recover(Path spec, int firstExit) throws Exception {
            boolean resume = recovery == Recovery.RESUME && firstExit != 0;
            for (int attempt = 0; attempt < 3; attempt++) {
                CliRun run = resume ? CliRun.of("run", spec.toString(), "--resume", "fc-1")
                        : CliRun.of("run", spec.toString(), "--run-id", "fc-2-" + attempt);
                if (run.exitCode() == 0) {
                    return;
                }
                if (run.exitCode() == 4 && run.all().contains("error[RESUME008]")) {
                    assertEquals(Mode.NEW_FILES, mode, "only an append refuses a fresh run: " + run.all());
                    resume = true;
                    continue;
                }
                if (run.exitCode() == 3 && run.all().contains("error[RESUME003]")) {
                    assertEquals(Mode.TRUNCATE, mode, "a new-files resume goes on without a gone file: " + run.all());
                    assertTrue(run.all().contains("start a new run without --resume"), run.all());
                    resume = false;
                    continue;
                }
                assertTrue(change == Change.CORRUPT, run.all());
                assertTrue(run.all().contains(file(FILES).getFileName().toString()), "names the file: " + run.all());
                write(FILES, 3, ROWS - 2_000); // uploaded again
            }
            throw new AssertionError("not recovered in three steps");
        }

        /** Each version in the target whole or not at all, each row once; truncate holds one version per file. */
        private void assertWhole(String when) throws Exception {
            Map<Integer, Map<Integer, Long>> held = held(when);
            for (Map.Entry<Integer, Map<Integer, Long>> file : held.entrySet()) {
                for (Map.Entry<Integer, Long> version : file.getValue().entrySet()) {
                    Integer written = versions.getOrDefault(file.getKey(), Map.of()).get(version.getKey());
                    assertEquals(written == null ? -1 : written.longValue(), version.getValue(), when + ": file "
                            + file.getKey() + " version " + version.getKey() + " whole");
                }
                if (mode == Mode.TRUNCATE) {
                    assertEquals(1, file.getValue().size(), when + ": one version of file " + file.getKey() + ": "
                            + held);
                }
            }
        }

        /** After a further run: every file there is now, in its version now (truncate: those alone). */
        private void assertCurrent() throws Exception {
            Map<Integer, Map<Integer, Long>> held = held("now");
            for (Map.Entry<Integer, Integer> file : current.entrySet()) {
                assertTrue(held.getOrDefault(file.getKey(), Map.of()).containsKey(file.getValue()), "file "
                        + file.getKey() + " in version " + file.getValue() + ": " + held);
            }
            if (mode == Mode.TRUNCATE) {
                assertEquals(current.keySet(), held.keySet(), "the files there are, alone: " + held);
            }
        }

        /** Rows by file and version; a row twice fails here. */
        private Map<Integer, Map<Integer, Long>> held(String when) throws Exception {
            assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM items"), when
                    + ": each row once");
            Map<Integer, Map<Integer, Long>> held = new TreeMap<>();
            try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id / 10000000, id % 10000000 / 100000, count(*) FROM items "
                         + "GROUP BY 1, 2")) {
                while (rs.next()) {
                    held.computeIfAbsent(rs.getInt(1), k -> new TreeMap<>()).put(rs.getInt(2), rs.getLong(3));
                }
            }
            return held;
        }

        private Path spec() throws Exception {
            Path spec = home.resolve("files.yaml");
            Files.writeString(spec, """
                    version: 1
                    name: file-crash-matrix
                    connections:
                      lake: { type: duckdb }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: items
                        source: { connection: lake, files: "%s" }
                        target: { connection: dst, table: items }
                        degree: %d
                    """.formatted(f.pg.jdbcUrl(f.target), f.pg.user(), landing.resolve("items-*.parquet"),
                    mode == Mode.TRUNCATE ? 2 : 1)
                    + (mode == Mode.NEW_FILES ? "    load-mode: append\n    incremental: { new-files: true }\n"
                    : "    load-mode: truncate\n"));
            return spec;
        }

        private Path file(int file) {
            return landing.resolve("items-" + file + ".parquet");
        }

        private void write(int file, int version, int rows) throws Exception {
            long base = file * 10_000_000L + version * 100_000L;
            Path to = file(file);
            Path written = landing.resolve(".items-" + file + ".tmp");
            try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
                s.execute("COPY (SELECT (" + base + " + g)::BIGINT AS id, 'item ' || g AS name, (g / 7.0)"
                        + "::DECIMAL(10,2) AS price FROM range(1, " + (rows + 1) + ") t(g)) TO '" + written
                        + "' (FORMAT parquet)");
            }
            Files.move(written, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE); // as an upload lands: whole
            versions.computeIfAbsent(file, k -> new TreeMap<>()).put(version, rows);
            current.put(file, version);
        }
    }
}
