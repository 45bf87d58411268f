package io.sluice.app.ledger;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table pattern on real PostgreSQL: a schema of 40 tables (empty, tiny, one large, odd names, one without a primary
 * key, a partitioned one) and two temporary ones the exclude leaves out, into a template that create: if-missing
 * fills, degree 2 with three streams at once; a SIGKILL mid-run, then --resume: every table equal.
 */
class ManyTablesTest {
    private static final List<String> ODD = List.of("\"Odd Name\"", "\"with.dot\"", "\"ünïcode\"");

    @TempDir
    Path dir;

    @Test
    void aPatternLoadsEveryMatchedTableAndAResumeAfterASigkillIsExact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "many", 1);
        List<String> setup = new ArrayList<>(List.of("CREATE SCHEMA sales",
                "CREATE TABLE sales.empty_one (id bigint PRIMARY KEY, note text)",
                "CREATE TABLE sales.big (id bigint PRIMARY KEY, note text, amount numeric(12,2))",
                "INSERT INTO sales.big SELECT g, 'big ' || g, g / 3.0 FROM generate_series(1, 200000) g",
                "CREATE TABLE sales.no_key (id bigint, note text)",
                "INSERT INTO sales.no_key SELECT g, 'nk ' || g FROM generate_series(1, 500) g",
                "CREATE TABLE sales.parted (id bigint, at date NOT NULL, note text) PARTITION BY RANGE (at)",
                "CREATE TABLE sales.parted_2025 PARTITION OF sales.parted FOR VALUES FROM ('2025-01-01') TO "
                        + "('2026-01-01')",
                "CREATE TABLE sales.parted_2026 PARTITION OF sales.parted FOR VALUES FROM ('2026-01-01') TO "
                        + "('2027-01-01')",
                "INSERT INTO sales.parted SELECT g, date '2025-06-01' + g, 'p ' || g FROM generate_series(1, 400) g",
                "CREATE TABLE sales.tmp_1 (id bigint)", "CREATE TABLE sales.tmp_2 (id bigint)"));
        for (String odd : ODD) {
            setup.add("CREATE TABLE sales." + odd + " (id bigint PRIMARY KEY, \"Note\" text)");
            setup.add("INSERT INTO sales." + odd + " SELECT g, 'odd ' || g FROM generate_series(1, 50) g");
        }
        for (int i = 1; i <= 33; i++) {
            String t = String.format("sales.tiny_%02d", i);
            setup.add("CREATE TABLE " + t + " (id bigint PRIMARY KEY, note text)");
            setup.add("INSERT INTO " + t + " SELECT g, 't' || g FROM generate_series(1, " + (i * 3) + ") g");
        }
        setup.add("ANALYZE");
        f.sql(f.source, setup.toArray(String[]::new));
        f.sql(f.target, "CREATE SCHEMA staging");
        List<String> tables = tables(f, f.source);
        assertEquals(40, tables.size() - 2, "40 tables match once the temporary ones are excluded: " + tables);

        Path spec = dir.resolve("many.yaml");
        Files.writeString(spec, """
                version: 1
                name: many-tables
                max-parallel-streams: 3
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: sales
                    source: { connection: src, table: "sales.*", exclude: ["sales.tmp_*"] }
                    target: { connection: dst, table: "staging.{table}", create: if-missing }
                    distribution: { method: ctid }
                    degree: 2
                    batch-size: 20000
                    load-mode: truncate
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));

        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("stream sales.sales.big:") && plan.out().contains("stream sales.sales.Odd Name:")
                && plan.out().contains("CREATE TABLE \"staging\".\"with.dot\""), plan.out());
        assertTrue(!plan.out().contains("stream sales.sales.tmp_1") && !plan.out().contains("stream sales.sales.parted_2025")
                && plan.out().contains("stream sales.sales.parted:"), "excluded, and partitions go with their table");
        CliRun lint = CliRun.of("lint", spec.toString(), "--connect");
        assertTrue(lint.all().contains("the pattern matches 40 table(s)"), lint.all());

        Path log = dir.resolve("many-1.log");
        Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "many-1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (f.donePartitions("many-1") < 3) {
            assertTrue(child.isAlive(), "the run ended before the kill:\n" + Files.readString(log));
            assertTrue(System.nanoTime() < deadline, Files.readString(log));
            Thread.sleep(10); // polling the ledger for the kill point, not timing anything
        }
        child.destroyForcibly(); // SIGKILL mid-run
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "many-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        for (String table : tables) {
            if (table.startsWith("sales.tmp_")) {
                continue;
            }
            String name = table.substring("sales.".length());
            assertEquals(digest(f, f.source, "sales." + name), digest(f, f.target, "staging." + name), table);
        }
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_tables WHERE schemaname = 'staging' "
                + "AND tablename LIKE 'tmp%'"), "the excluded tables were not loaded");
        CliRun status = CliRun.of("status", spec.toString(), "many-1");
        assertTrue(status.out().contains("sales.sales.big") && status.out().contains("sales.sales.tiny_33"),
                status.out());

        // 40 tables: a run line every 4 tables instead of two lines per table; --verbose brings them back.
        CliRun quiet = CliRun.of("run", spec.toString(), "--run-id", "many-2");
        assertEquals(0, quiet.exitCode(), quiet.all());
        assertTrue(quiet.err().contains("40 tables; a line for each one that fails") && quiet.err().contains(
                "tables 40/40 done") && !quiet.err().contains("stream sales.sales.tiny_33: done"), quiet.err());
        assertEquals(10, quiet.err().lines().filter(l -> l.startsWith("tables ")).count(), quiet.err());
        CliRun verbose = CliRun.of("run", spec.toString(), "--run-id", "many-3", "--verbose");
        assertEquals(0, verbose.exitCode(), verbose.all());
        assertTrue(verbose.err().contains("stream sales.sales.tiny_33: done") && !verbose.err().contains("tables "
                + "40/40 done"), verbose.err());
    }

    /**
     * The streams of a run hand their sessions on: at max-parallel-streams 1, one writer session loads every table (a
     * target column defaulting to pg_backend_pid() shows which), and a merge's staging table, made for one table's
     * columns, does not follow its session into the next table's merge (a target that held rows merges through
     * staging).
     */
    @Test
    void theTablesOfAPatternShareTheirWriterSessionAndEachMergesThroughItsOwnStaging() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "handon", 1);
        List<String> source = new ArrayList<>(List.of("CREATE SCHEMA shop"));
        List<String> target = new ArrayList<>(List.of("CREATE SCHEMA shop"));
        for (int i = 1; i <= 6; i++) {
            source.add("CREATE TABLE shop.t" + i + " (id bigint PRIMARY KEY, n" + i + " int, note text)");
            source.add("INSERT INTO shop.t" + i + " SELECT g, g * " + i + ", 'n' || g FROM generate_series(1, "
                    + (100 * i) + ") g");
            target.add("CREATE TABLE shop.t" + i + " (id bigint PRIMARY KEY, n" + i + " int, note text, "
                    + "writer int DEFAULT pg_backend_pid())");
            target.add("INSERT INTO shop.t" + i + " (id, n" + i + ", note) VALUES (0, -1, 'kept')");
        }
        f.sql(f.source, source.toArray(String[]::new));
        f.sql(f.target, target.toArray(String[]::new));
        Path spec = dir.resolve("handon.yaml");
        Files.writeString(spec, """
                version: 1
                name: handon
                max-parallel-streams: 1
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: shop
                    source: { connection: src, table: "shop.*" }
                    target: { connection: dst, table: "shop.{table}" }
                    load-mode: merge
                    merge-key: [id]
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        List<String> writers = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            String copied = "SELECT id, n" + i + ", note FROM shop.t" + i + " WHERE id > 0";
            assertEquals(f.scalar(f.source, "SELECT hashtext(string_agg(t::text, ',' ORDER BY id)) FROM (" + copied
                    + ") t"), f.scalar(f.target, "SELECT hashtext(string_agg(t::text, ',' ORDER BY id)) FROM ("
                    + copied + ") t"), "t" + i);
            writers.add("SELECT writer FROM shop.t" + i + " WHERE id > 0"); // the row at 0 is the target's own
        }
        assertEquals(1, f.scalar(f.target, "SELECT count(DISTINCT writer) FROM (" + String.join(" UNION ALL ",
                writers) + ") w"), "one writer session loaded the six tables one after another");
    }

    @Test
    void keyPrimaryKeyRefusesEveryTableWithoutOneAtOnce() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "manykey", 1);
        f.sql(f.source, "CREATE SCHEMA shop", "CREATE TABLE shop.a (id bigint PRIMARY KEY)",
                "CREATE TABLE shop.b (id bigint)", "CREATE TABLE shop.c (id bigint)");
        Path spec = dir.resolve("key.yaml");
        Files.writeString(spec, """
                version: 1
                name: many-key
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: shop
                    source: { connection: src, table: "shop.*" }
                    target: { connection: dst, table: "public.{table}" }
                    distribution: { method: range, key: primary-key }
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.all().contains("error[PLAN007]") && run.all().contains("2 matched table(s) have no primary "
                + "key: shop.b, shop.c"), run.all());

        f.sql(f.source, "DROP TABLE shop.b", "DROP TABLE shop.c", "CREATE TABLE shop.b (id bigint PRIMARY KEY)");
        CliRun missing = CliRun.of("run", spec.toString());
        assertEquals(4, missing.exitCode(), missing.all());
        assertTrue(missing.all().contains("2 of 2 matched tables cannot be loaded")
                && missing.all().contains("\"public\".\"a\" does not exist")
                && missing.all().contains("\"public\".\"b\" does not exist"), missing.all());

        Path none = dir.resolve("none.yaml");
        Files.writeString(none, Files.readString(spec).replace("shop.*", "nowhere.*"));
        CliRun empty = CliRun.of("run", none.toString());
        assertEquals(4, empty.exitCode(), empty.all());
        assertTrue(empty.all().contains("error[PLAN006]"), empty.all());
    }

    @Test
    void twoTablesOfAPatternIntoOneTargetTableAreRefusedBeforeAnythingIsWritten() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "collide", 1);
        f.sql(f.source, "CREATE SCHEMA s1", "CREATE SCHEMA s2", "CREATE TABLE s1.t (id int)",
                "CREATE TABLE s2.t (id int)", "CREATE TABLE s1.u (id int)", "CREATE TABLE s2.u (id int)",
                "CREATE TABLE s1.only_here (id int)", "INSERT INTO s1.t SELECT generate_series(1, 100)",
                "INSERT INTO s2.t SELECT generate_series(1, 50)");
        f.sql(f.target, "CREATE SCHEMA staging");
        Path spec = dir.resolve("collide.yaml");
        Files.writeString(spec, """
                version: 1
                name: collide
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: both
                    source: { connection: src, table: "s?.*" }
                    target: { connection: dst, table: "staging.{table}", create: if-missing }
                    load-mode: truncate
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.all().contains("error[PLAN008]") && run.all().contains("s1.t and s2.t")
                && run.all().contains("s1.u and s2.u") && run.all().contains("2 collision(s)")
                && run.all().contains("{schema}"), run.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_tables WHERE schemaname = 'staging'"),
                "nothing created");

        Files.writeString(spec, Files.readString(spec).replace("staging.{table}", "staging.{schema}_{table}"));
        CliRun apart = CliRun.of("run", spec.toString());
        assertEquals(0, apart.exitCode(), apart.all());
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM staging.s1_t"));
        assertEquals(50, f.scalar(f.target, "SELECT count(*) FROM staging.s2_t"));
    }

    @Test
    void aRunKilledBetweenTablesIsUnfinishedInTheLedgerAndResumeCopiesTheRest() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "between", 1);
        List<String> setup = new ArrayList<>(List.of("CREATE SCHEMA shop"));
        for (int i = 1; i <= 8; i++) {
            setup.add("CREATE TABLE shop.t" + i + " (id bigint, note text)");
            setup.add("INSERT INTO shop.t" + i + " SELECT g, 'n' || g FROM generate_series(1, 40000) g");
        }
        f.sql(f.source, setup.toArray(String[]::new));
        f.sql(f.target, "CREATE SCHEMA shop");
        Path spec = dir.resolve("between.yaml");
        Files.writeString(spec, """
                version: 1
                name: between
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: shop
                    source: { connection: src, table: "shop.*" }
                    target: { connection: dst, table: "shop.{table}", create: if-missing }
                    load-mode: truncate
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        Path log = dir.resolve("between.log");
        Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "between-1");
        LedgerFixture.waitUntil(child, log, () -> f.scalar(f.target, "SELECT count(*) FROM sluice.run_streams "
                + "WHERE run_id = 'between-1' AND state = 'done'") >= 2);
        child.destroyForcibly();
        assertTrue(child.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(8, f.scalar(f.target, "SELECT count(*) FROM sluice.run_streams WHERE run_id = 'between-1'"),
                "the ledger knew every table of the run from its start");

        CliRun status = CliRun.of("status", spec.toString(), "between-1");
        assertTrue(status.out().contains("not started"), status.out());
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.all().contains("between-1"), "the newest unfinished run was found: " + resumed.all());
        for (int i = 1; i <= 8; i++) {
            assertEquals(40_000, f.scalar(f.target, "SELECT count(*) FROM shop.t" + i), "table t" + i);
        }
    }

    @Test
    void inheritanceChildrenThatThePatternMatchesAreCopiedOnceByTheirOwnStream() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "inherit", 1);
        f.sql(f.source, "CREATE SCHEMA fam", "CREATE TABLE fam.parent (id bigint, note text)",
                "CREATE TABLE fam.child (extra int) INHERITS (fam.parent)",
                "INSERT INTO fam.parent SELECT g, 'p' FROM generate_series(1, 300) g",
                "INSERT INTO fam.child SELECT g, 'c', g FROM generate_series(1, 200) g");
        f.sql(f.target, "CREATE SCHEMA fam");
        Path spec = dir.resolve("inherit.yaml");
        Files.writeString(spec, """
                version: 1
                name: inherit
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: fam
                    source: { connection: src, table: "fam.*" }
                    target: { connection: dst, table: "fam.{table}", create: if-missing }
                    distribution: { method: ctid }
                    degree: 2
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(300, f.scalar(f.target, "SELECT count(*) FROM fam.parent"), "the parent's own rows, once");
        assertEquals(200, f.scalar(f.target, "SELECT count(*) FROM fam.child"));
        assertTrue(run.all().contains("500 rows") || run.all().contains("500"), run.all());
    }

    @Test
    void controlCharactersInTableNamesNeverReachTheTerminalRaw() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "controls", 1);
        f.sql(f.source, "CREATE SCHEMA odd", "CREATE TABLE odd.\"red\u001b[31mtable\" (id int)",
                "CREATE TABLE odd.\"line\nbreak\" (id int)", "CREATE TABLE odd.\"carriage\rreturn\" (id int)",
                "INSERT INTO odd.\"line\nbreak\" VALUES (1)");
        f.sql(f.target, "CREATE SCHEMA odd");
        Path spec = dir.resolve("controls.yaml");
        Files.writeString(spec, """
                version: 1
                name: controls
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: odd
                    source: { connection: src, table: "odd.*" }
                    target: { connection: dst, table: "odd.{table}", create: if-missing }
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertTrue(!run.all().contains("\u001b") && !run.all().contains("\r"), run.all());
        assertTrue(run.all().contains("red\\x1b[31mtable") && run.all().contains("line\\x0abreak"), run.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM odd.\"line\nbreak\""), "the real name was loaded");
    }

    /** The source's tables of schema sales, as sales.name (unquoted), partitions left out. */
    /**
     * A pattern's tables are read ahead of their planning, on both sides: planning 60 tables asks each database a few
     * transactions in all (the server's own count, once the plan's sessions are gone), where planning each table on
     * its own asked the source four and the target eight per table (and a created table's definition one more).
     */
    @Test
    void aPatternIsPlannedInAFewStatementsWhateverItsNumberOfTables() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "ahead", 1);
        List<String> setup = new ArrayList<>(List.of("CREATE SCHEMA shop"));
        List<String> existing = new ArrayList<>(List.of("CREATE SCHEMA kept", "CREATE SCHEMA made"));
        for (int i = 1; i <= 60; i++) {
            String create = String.format("TABLE %%s.t_%02d (id bigint PRIMARY KEY, note text, at date)", i);
            setup.add("CREATE " + create.formatted("shop"));
            setup.add(String.format("INSERT INTO shop.t_%02d SELECT g, 'n' || g, date '2026-01-01' + g "
                    + "FROM generate_series(1, %d) g", i, i));
            existing.add("CREATE " + create.formatted("kept"));
        }
        f.sql(f.source, setup.toArray(String[]::new));
        // Analyzed now, so autovacuum has nothing to analyze while the plan is counted: its transactions count too
        f.sql(f.source, "ANALYZE");
        f.sql(f.target, existing.toArray(String[]::new));
        for (String into : List.of("table: \"kept.{table}\"", "table: \"made.{table}\", create: if-missing")) {
            Path spec = dir.resolve("ahead.yaml");
            Files.writeString(spec, """
                    version: 1
                    name: read-ahead
                    connections:
                      src: { type: postgres, url: "%s", user: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: shop
                        source: { connection: src, table: "shop.*" }
                        target: { connection: dst, %s }
                        load-mode: truncate
                    """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user(), into));
            long[] before = {transactions(f, f.source), transactions(f, f.target)};
            CliRun plan = CliRun.of("plan", spec.toString());
            assertEquals(0, plan.exitCode(), plan.all());
            assertTrue(plan.out().contains("stream shop.shop.t_60:"), plan.out());
            long source = transactions(f, f.source) - before[0];
            long target = transactions(f, f.target) - before[1];
            // Each session's set-up counts too; planned one by one, 60 tables took over 240 and 480.
            assertTrue(source <= 40, into + ": the source was asked " + source + " transactions for 60 tables");
            assertTrue(target <= 40, into + ": the target was asked " + target + " transactions for 60 tables");
        }
    }

    /**
     * The transactions the database's sessions committed, as the server counts them once Sluice's sessions (which
     * report theirs when they end) are gone; this test's own query counts too (one each time).
     */
    private static long transactions(LedgerFixture f, String database) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (f.scalar(database, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND application_name LIKE 'sluice%'") > 0) {
            assertTrue(System.nanoTime() < deadline, "Sluice's sessions on " + database + " did not end");
            Thread.sleep(10); // waiting for the sessions to end, not timing anything
        }
        return f.scalar(database, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
    }

    private static List<String> tables(LedgerFixture f, String database) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = f.pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT relname FROM pg_class WHERE relnamespace = 'sales'::regnamespace "
                     + "AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY 1")) {
            while (rs.next()) {
                names.add("sales." + rs.getString(1));
            }
        }
        return names;
    }

    /** Row count and an order-independent hash of the rows' text. */
    private static String digest(LedgerFixture f, String database, String table) throws SQLException {
        String[] parts = table.split("\\.", 2);
        String quoted = "\"" + parts[0] + "\".\"" + parts[1].replace("\"", "\"\"") + "\"";
        try (Connection c = f.pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) || ':' || COALESCE(md5(string_agg(t::text, ',' ORDER BY "
                     + "t::text)), '') FROM " + quoted + " t")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
