package io.sluice.app.meaning;

import io.sluice.app.CliRun;
import io.sluice.app.SluiceProcess;
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
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every stream option against every path that moves rows, generated: each cell ends exact against what the spec
 * promises (computed from the source by an oracle of its own: the option's projection and filter in SQL over the
 * source table) or is refused by {@code sluice plan} and {@code sluice run} before anything is written, with the code
 * the refusal table names. Beside the matrix, drawn combinations of several options with a drawn source history: a
 * fixed seed in the README's tier, a new seed (printed) in the full one; a failure prints its spec and history.
 *
 * <p>One cell alone: {@code -Dtest=CompositionTest "-Dsluice.case=RENAME / CHANGES"}; one drawn case again:
 * {@code -Dsluice.seed=<seed>}.
 */
@Tag(TestTier.SAMPLED)
class CompositionTest {
    private static final int ROWS = 6_000;
    private static final int QUICK_CASES = 10;
    private static final long QUICK_SEED = 55;
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static TestingPostgres pg;

    @TempDir
    static Path dir;

    /** A stream option: its spec lines, and what it makes of the source's rows (the oracle's part). */
    enum Option {
        NONE,
        RENAME("columns: amt: { rename: amount }"),
        EXCLUDE("columns: note: { exclude: true }"),
        EXPRESSION("columns: qty: { expression: \"qty * 2\" }"),
        MASK("columns: note: { mask: redact }"),
        TYPE("columns: amt: { type: \"numeric(16,2)\" }"),
        WHERE,
        CHECKS("checks: [ { name: ids, sql: \"select count(*) from {table} where id <= 0\" } ]"),
        HOOKS("after: [ \"analyze {table}\", \"comment on table {table} is 'loaded'\" ]"),
        WIDEN("schema-changes: widen"),
        REJECTS("rejects: { table: public.t_rejects }"),
        INDEXES("indexes: rebuild"),
        /** The source schema's other objects too: a view over the table, a function it calls, a publication. */
        OBJECTS,
        /** Every loaded row compared with the run's source snapshot before the load goes live. */
        VERIFY("verify: compare");

        /** Stream lines; one starting {@code columns: } is a rule, merged with the other options' rules. */
        final List<String> lines;

        Option(String... lines) {
            this.lines = List.of(lines);
        }

        /** The source option it adds, if any. */
        String sourceOption() {
            return this == WHERE ? ", where: \"id % 3 <> 0\"" : "";
        }

        /** The target option it adds, if any. */
        String targetOption() {
            return this == OBJECTS ? ", objects: all, publications: copy" : "";
        }

        void shape(Map<String, String> columns, List<String> filters) {
            switch (this) {
                case RENAME -> columns.put("amt", "=amount");
                case EXCLUDE -> columns.remove("note");
                case EXPRESSION -> columns.put("qty", "qty * 2");
                case MASK -> columns.computeIfPresent("note", (k, v) -> "repeat('*', length(" + v + "))");
                case WHERE -> filters.add("id % 3 <> 0");
                default -> {
                }
            }
        }
    }

    /** A way the rows take: a load mode, the change apply, a SIGKILL then a resume or a fresh run. */
    enum Way {
        TRUNCATE("load-mode: truncate"),
        APPEND("load-mode: append"),
        REPLACE("load-mode: replace"),
        MERGE("load-mode: merge", "delete-missing: true"),
        CHANGES,
        KILL_RESUME("load-mode: truncate"),
        KILL_FRESH("load-mode: truncate"),
        /** Two processes started together with --join, sharing the run's partitions and its after-load steps. */
        JOIN("load-mode: truncate", "consistency: none"),
        /** The nightly "sync new rows": each run reads the rows past the last run's highest id, and merges them. */
        INCREMENTAL("load-mode: merge", "incremental: { cursor: id }");

        final List<String> lines;

        Way(String... lines) {
            this.lines = List.of(lines);
        }

        boolean rerunsAfterChanges() {
            return this != APPEND && this != KILL_RESUME && this != KILL_FRESH;
        }
    }

    /** What a path refuses of an option, before anything is written: the code and the exit code. */
    private static Optional<Refusal> refusal(Set<Option> options, Way path) {
        // The spec's own rules first: lint refuses them before a run looks at any connection
        if (options.contains(Option.VERIFY) && options.contains(Option.REJECTS)) {
            return Optional.of(new Refusal("SPEC033", 3)); // rows set aside differ by design
        }
        if (options.contains(Option.VERIFY) && (path == Way.APPEND || path == Way.CHANGES)) {
            // the target keeps rows the source never had (the change path's first copy appends, the default)
            return Optional.of(new Refusal("SPEC028", 3));
        }
        if (options.contains(Option.VERIFY) && path == Way.INCREMENTAL) {
            return Optional.of(new Refusal("SPEC027", 3)); // a run loads a part; the target holds the whole
        }
        if (path == Way.CHANGES && options.contains(Option.WHERE)) {
            return Optional.of(new Refusal("PG111", 3));
        }
        if (path == Way.CHANGES && (options.contains(Option.EXPRESSION) || options.contains(Option.MASK)
                || options.contains(Option.REJECTS))) {
            return Optional.of(new Refusal("RUN070", 3));
        }
        if (path == Way.JOIN && options.contains(Option.INDEXES)) {
            return Optional.of(new Refusal("PLAN003", 3)); // steps after the last partition, not shared yet
        }
        if (options.contains(Option.OBJECTS) && options.stream().anyMatch(o -> o.lines.stream()
                .anyMatch(l -> l.startsWith("columns: ")))) {
            return Optional.of(new Refusal("PG238", 4)); // the objects name the source's columns as they are
        }
        if (options.contains(Option.OBJECTS) && path == Way.REPLACE) {
            return Optional.of(new Refusal("PG242", 4)); // the next swap could not stand under the view
        }
        return Optional.empty();
    }

    private record Refusal(String code, int exit) {
    }

    @BeforeAll
    static void start() {
        pg = TestingPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "40",
                "max_wal_senders", "40"));
    }

    @AfterAll
    static void stop() {
        pg.close();
    }

    @TestFactory
    Stream<DynamicTest> everyOptionOnEveryPathEndsExactOrIsRefusedBeforeWriting() {
        return TestTier.matrix(QUICK_CASES, List.of(List.of(Option.values()), List.of(Way.values())),
                cell -> new Case(EnumSet.of((Option) cell.get(0)), (Way) cell.get(1), List.of()).run());
    }

    /**
     * Drawn cases: two or three options, a path, and a history of source changes between the runs. The seed is
     * fixed in the quick tier; the full tier draws a new one and prints it.
     */
    @TestFactory
    Stream<DynamicTest> drawnCombinationsEndExactOrAreRefused() {
        long seed = Long.getLong("sluice.seed", TestTier.current() == TestTier.QUICK ? QUICK_SEED
                : System.nanoTime());
        int draws = TestTier.current() == TestTier.QUICK ? 3 : 16;
        System.out.println("CompositionTest: drawn cases with -Dsluice.seed=" + seed);
        Random random = new Random(seed);
        return IntStream.range(0, draws).mapToObj(i -> {
            List<Option> all = new ArrayList<>(List.of(Option.values()));
            all.remove(Option.NONE);
            java.util.Collections.shuffle(all, random);
            Set<Option> options = EnumSet.copyOf(all.subList(0, 2 + random.nextInt(2)));
            if (options.contains(Option.RENAME) && options.contains(Option.TYPE)) {
                options.remove(Option.TYPE); // two rules on one column
            }
            if (options.contains(Option.EXCLUDE) && options.contains(Option.MASK)) {
                options.remove(Option.MASK);
            }
            Way path = Way.values()[random.nextInt(Way.values().length)];
            List<String> history = new ArrayList<>(history(random));
            if (options.contains(Option.WIDEN) && random.nextBoolean()) {
                // A column added with a default at the source: the policy adds it, and the rows copied before (which
                // a change apply does not read again) hold the default there, as at the source.
                history.add(random.nextInt(history.size() + 1), ADD_COLUMN);
            }
            if (options.contains(Option.WIDEN) && !options.contains(Option.TYPE) && random.nextBoolean()) {
                // A column retyped wider at the source, then values only the wider type holds: widened in the target.
                int at = random.nextInt(history.size() + 1);
                history.addAll(at, RETYPE);
            }
            if (options.contains(Option.WIDEN) && !options.contains(Option.EXCLUDE) && !options.contains(Option.MASK)
                    && random.nextInt(3) == 0) {
                // A column dropped at the source: the policy loads NULL there from then on (every row a load
                // writes; the rows a change writes, the others keeping theirs). Last: the drawn DML writes it.
                history.add(DROP_COLUMN);
            }
            String name = "seed " + seed + " #" + i + ": " + options + " / " + path;
            return DynamicTest.dynamicTest(name, () -> new Case(options, path, history).run());
        });
    }

    /** The source's DDL a drawn history may hold (with {@link Option#WIDEN}, whose policy adds the column). */
    private static final String ADD_COLUMN = "ALTER TABLE t ADD COLUMN flag text NOT NULL DEFAULT 'Y'";
    private static final String DROP_COLUMN = "ALTER TABLE t DROP COLUMN note";
    private static final List<String> RETYPE = List.of("ALTER TABLE t ALTER COLUMN amt TYPE numeric(14,4)",
            "UPDATE t SET amt = amt + 0.0001 WHERE id % 17 = 0");

    /** A drawn history: statements on the source between the first run and the next. */
    private static List<String> history(Random random) {
        List<String> statements = new ArrayList<>();
        int steps = 1 + random.nextInt(4);
        for (int i = 0; i < steps; i++) {
            int id = 1 + random.nextInt(ROWS);
            statements.add(switch (random.nextInt(4)) {
                case 0 -> "INSERT INTO t SELECT g, g / 3.0, 'late ' || g, g % 7 FROM generate_series(" + (ROWS + id)
                        + ", " + (ROWS + id + random.nextInt(50)) + ") g ON CONFLICT DO NOTHING";
                case 1 -> "UPDATE t SET amt = amt + 1, note = note || '!' WHERE id BETWEEN " + id + " AND " + (id + 40);
                case 2 -> "DELETE FROM t WHERE id BETWEEN " + id + " AND " + (id + random.nextInt(30));
                default -> "UPDATE t SET id = id + " + (3 * ROWS) + " WHERE id = " + id; // a key that moves
            });
        }
        return statements;
    }

    /** One cell: databases of its own, the spec, the runs, the oracle. */
    private static final class Case {
        private final Set<Option> options;
        private final Way path;
        private final List<String> history;
        private final String source;
        private final String target;
        private final String slot;
        private String spec = "";

        Case(Set<Option> options, Way path, List<String> history) {
            this.options = options;
            this.path = path;
            List<String> fixed = new ArrayList<>(List.of("UPDATE t SET amt = amt + 1 WHERE id % 11 = 0",
                    "DELETE FROM t WHERE id % 13 = 0", "INSERT INTO t SELECT g, 1.5, 'new', 3 FROM generate_series("
                            + (ROWS + 1) + ", " + (ROWS + 100) + ") g"));
            if (options.contains(Option.WIDEN)) {
                fixed.addAll(1, RETYPE);
                fixed.add(3, ADD_COLUMN);
            }
            this.history = history.isEmpty() ? List.copyOf(fixed) : history;
            int n = DATABASES.incrementAndGet();
            this.source = pg.createDatabase("comp" + n + "_src");
            this.target = pg.createDatabase("comp" + n + "_dst");
            this.slot = "comp" + n;
        }

        void run() throws Throwable {
            try {
                sql(source, "CREATE TABLE t (id bigint PRIMARY KEY, amt numeric(12,2), note text, qty int)",
                        "INSERT INTO t SELECT g, g / 7.0, 'n' || g, g % 5 FROM generate_series(1, " + ROWS + ") g",
                        "ANALYZE t");
                if (options.contains(Option.OBJECTS)) {
                    // Over the key only, so a history that retypes or drops other columns still runs at the source.
                    sql(source, "CREATE FUNCTION even(n bigint) RETURNS boolean LANGUAGE sql IMMUTABLE "
                            + "AS 'SELECT n % 2 = 0'", "CREATE VIEW t_even AS SELECT id FROM t WHERE even(id)",
                            "CREATE PUBLICATION t_pub FOR TABLE t");
                }
                Path file = writeSpec();
                Optional<Refusal> refused = refusal(options, path);
                if (refused.isPresent()) {
                    List<List<String>> commands = path == Way.JOIN
                            ? List.of(List.of("run", file.toString(), "--run-id", "j1", "--join"))
                            : List.of(List.of("plan", file.toString()), List.of("run", file.toString()));
                    for (List<String> command : commands) {
                        CliRun r = CliRun.of(command.toArray(String[]::new));
                        assertEquals(refused.get().exit(), r.exitCode(), command + ": " + r.all());
                        assertTrue(r.all().contains(refused.get().code()), command + ": " + r.all());
                    }
                    assertEquals("0", text(target, "SELECT count(*) FROM pg_class WHERE relname = 't'"),
                            "nothing created");
                    assertEquals("0", text(source, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                            + slot + "'"), "no slot made");
                    return;
                }
                switch (path) {
                    case KILL_RESUME, KILL_FRESH -> killed(file);
                    case JOIN -> joined(file);
                    default -> ok(CliRun.of("run", file.toString()));
                }
                assertExact("after the first run");
                if (path == Way.INCREMENTAL) {
                    // The first run's moment, for the oracle: the rows the next run does not read again stay so.
                    sql(source, "CREATE TABLE t_first AS SELECT * FROM t");
                }
                if (path.rerunsAfterChanges()) {
                    sql(source, history.toArray(String[]::new));
                    if (path == Way.INCREMENTAL) {
                        sql(source, history.stream().filter(h -> h.startsWith("ALTER TABLE t "))
                                .map(h -> h.replace("ALTER TABLE t ", "ALTER TABLE t_first ")).toArray(String[]::new));
                    }
                    if (rereadsNoDefault()) {
                        // The retype rewrote the table: the added column's default is in every row, and no longer
                        // what PostgreSQL keeps for the rows from before. A path that does not read them again
                        // cannot know their values: refused, nothing written.
                        String before = text(target, "SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM t");
                        CliRun r = CliRun.of("run", file.toString());
                        assertEquals(4, r.exitCode(), r.all());
                        assertTrue(r.all().contains("PG232"), r.all());
                        assertEquals(before, text(target, "SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) "
                                + "FROM t"), "nothing written");
                        return;
                    }
                    ok(CliRun.of("run", file.toString()));
                    assertExact("after the source changed (" + String.join("; ", history) + ")");
                }
            } catch (Throwable e) {
                throw new AssertionError(e.getMessage() + "\nspec:\n" + spec, e);
            } finally {
                try {
                    sql("postgres", "DROP DATABASE IF EXISTS " + target + " WITH (FORCE)");
                    sql("postgres", "SELECT pg_drop_replication_slot('" + slot + "') FROM pg_replication_slots "
                            + "WHERE slot_name = '" + slot + "'");
                    sql("postgres", "DROP DATABASE IF EXISTS " + source + " WITH (FORCE)");
                } catch (SQLException ignored) {
                    // left to the server's end: the cell's own outcome is what it reports
                }
            }
        }

        /** A column added with a default, then the table rewritten, on a path that does not read its rows again. */
        private boolean rereadsNoDefault() {
            int added = history.indexOf(ADD_COLUMN);
            int retyped = history.indexOf(RETYPE.get(0));
            return (path == Way.CHANGES || path == Way.INCREMENTAL) && added >= 0 && retyped > added;
        }

        private Path writeSpec() throws Exception {
            StringBuilder extra = new StringBuilder();
            String sourceOptions = "";
            String targetOptions = "";
            List<String> rules = new ArrayList<>();
            for (Option option : options) {
                for (String line : option.lines) {
                    if (line.startsWith("columns: ")) {
                        rules.add(line.substring("columns: ".length()));
                    } else {
                        extra.append("    ").append(line).append('\n');
                    }
                }
                sourceOptions += option.sourceOption();
                targetOptions += option.targetOption();
            }
            if (!rules.isEmpty()) {
                extra.append("    columns: { ").append(String.join(", ", rules)).append(" }\n");
            }
            path.lines.forEach(l -> extra.append("    ").append(l).append('\n'));
            if (path == Way.CHANGES) {
                sourceOptions += ", changes: { slot: " + slot + " }";
            }
            String key = (path == Way.MERGE || path == Way.CHANGES || path == Way.INCREMENTAL ? ", primary-key: [id]"
                    : "") + targetOptions;
            spec = """
                    version: 1
                    name: %s
                    connections:
                      src: { type: postgres, url: "%s", user: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: t
                        source: { connection: src, table: public.t%s }
                        target: { connection: dst, table: public.t, create: if-missing%s }
                        distribution: { method: ctid }
                        degree: 2
                        batch-size: 500
                    """.formatted(slot, pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user(), sourceOptions,
                    key) + extra;
            Path file = dir.resolve(slot + ".yaml");
            Files.writeString(file, spec);
            return file;
        }

        /** A child run SIGKILLed once a partition is done (stopped while the test looks), then recovered. */
        private void killed(Path file) throws Exception {
            Path log = dir.resolve(slot + ".log");
            Process child = new ProcessBuilder(SluiceProcess.command("run", file.toString(), "--run-id", "k1"))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            boolean killed = false;
            // one connection for every look: one per look took longer than the run was let go between two
            try (Connection looks = pg.connect(target); Statement s = looks.createStatement()) {
                while (child.isAlive() && System.nanoTime() < deadline) {
                    signal(child, "STOP");
                    long done;
                    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM sluice.run_partitions WHERE run_id = "
                            + "'k1' AND state = 'done'")) {
                        rs.next();
                        done = rs.getLong(1);
                    } catch (SQLException notYet) {
                        done = 0;
                    }
                    if (done >= 1) {
                        child.destroyForcibly();
                        killed = true;
                        break;
                    }
                    signal(child, "CONT");
                    Thread.sleep(3); // polling for a state, not timing anything
                }
            }
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child ended");
            if (!killed) {
                assertEquals(0, child.exitValue(), Files.readString(log));
                return; // it was done before a partition could be seen done: nothing to recover
            }
            ok(path == Way.KILL_RESUME ? CliRun.of("run", file.toString(), "--resume", "k1")
                    : CliRun.of("run", file.toString(), "--run-id", "k2"));
        }

        /** Two processes of one run, started together; each ends 0 once every partition is done, whoever did it. */
        private void joined(Path file) throws Exception {
            List<Process> processes = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                processes.add(new ProcessBuilder(SluiceProcess.command("run", file.toString(), "--run-id", "j1",
                        "--join")).redirectErrorStream(true).redirectOutput(dir.resolve(slot + "-j" + i + ".log")
                        .toFile()).start());
            }
            for (int i = 0; i < processes.size(); i++) {
                assertTrue(processes.get(i).waitFor(120, TimeUnit.SECONDS), "joined process " + i + " ended");
                assertEquals(0, processes.get(i).exitValue(), Files.readString(dir.resolve(slot + "-j" + i
                        + ".log")));
            }
        }

        /** The target holds exactly the source's rows as the options shape them. */
        private void assertExact(String when) throws SQLException {
            Map<String, String> columns = new LinkedHashMap<>();
            for (String c : List.of("id", "amt", "note", "qty")) {
                columns.put(c, c);
            }
            boolean changed = when.startsWith("after the source changed");
            if (changed && history.contains(ADD_COLUMN)) {
                columns.put("flag", "flag");
            }
            if (changed && history.contains(DROP_COLUMN)) {
                if (path == Way.CHANGES || path == Way.INCREMENTAL) {
                    columns.remove("note"); // NULL where a change wrote the row after the drop, the old value elsewhere
                } else {
                    columns.put("note", "NULL::text"); // every row loaded again, with NULL there
                }
            }
            List<String> filters = new ArrayList<>();
            for (Option option : options) {
                option.shape(columns, filters);
            }
            List<String> sourceExprs = new ArrayList<>();
            List<String> targetCols = new ArrayList<>();
            for (Map.Entry<String, String> c : columns.entrySet()) {
                boolean renamed = c.getValue().startsWith("=");
                sourceExprs.add(renamed ? c.getKey() : c.getValue());
                targetCols.add("\"" + (renamed ? c.getValue().substring(1) : c.getKey()) + "\"");
            }
            String where = filters.isEmpty() ? "" : " WHERE " + String.join(" AND ", filters);
            String from = "t";
            if (changed && path == Way.INCREMENTAL) {
                // The rows of the first run as they were then, and the rows past its highest id as they are now.
                from = "(SELECT * FROM t_first UNION ALL SELECT * FROM t WHERE id > (SELECT max(id) FROM t_first)) t";
            }
            String expected = text(source, digest(String.join(", ", sourceExprs), from + where));
            String actual = text(target, digest(String.join(", ", targetCols), "t"));
            if (!expected.equals(actual)) {
                Set<String> want = rows(source, String.join(", ", sourceExprs), from + where);
                Set<String> have = rows(target, String.join(", ", targetCols), "t");
                assertEquals(expected, actual, when + ": the target holds the source's rows as the spec shapes them; "
                        + "missing " + first(want, have) + ", extra " + first(have, want));
            }
            if (options.contains(Option.OBJECTS)) {
                assertEquals(text(target, "SELECT count(*) FROM t WHERE id % 2 = 0"),
                        text(target, "SELECT count(*) FROM t_even"),
                        when + ": the view came with the table (objects: all) and reads the copied rows");
                // Not the change feed's own publication (named as its slot), which is the source's.
                assertEquals("t_pub", text(target, "SELECT string_agg(pubname, ',') FROM pg_publication"),
                        when + ": the user's publication came with it (publications: copy)");
            }
        }

        private static Set<String> rows(String database, String columns, String from) throws SQLException {
            Set<String> rows = new java.util.TreeSet<>();
            try (Connection c = pg.connect(database); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT row(" + columns + ")::text FROM " + from)) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
            return rows;
        }

        /** The first few rows of {@code a} not in {@code b}, for a failure's message. */
        private static List<String> first(Set<String> a, Set<String> b) {
            return a.stream().filter(r -> !b.contains(r)).limit(5).toList();
        }

        private static String digest(String columns, String from) {
            return "SELECT count(*) || ':' || md5(coalesce(string_agg(r, '|' ORDER BY r), '')) FROM (SELECT row("
                    + columns + ")::text AS r FROM " + from + ") x";
        }

        private static void ok(CliRun run) {
            assertEquals(0, run.exitCode(), run.all());
        }
    }

    private static void signal(Process process, String signal) throws Exception {
        io.sluice.app.Signals.send(process, signal);
    }

    private static void sql(String database, String... statements) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static String text(String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
