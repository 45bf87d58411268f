package io.sluice.app;

import io.sluice.testkit.TestingMariaDb;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code type: mysql} on a real MariaDB server into a real PostgreSQL: every MySQL/MariaDB type at its edges lands as
 * the value it was, in the type {@code create: if-missing} gives it; a zero date fails naming its column and value
 * (never a silent NULL); readers at degree 2 read one moment while a writer writes.
 */
class MySqlPipelineTest {
    private static TestingMariaDb my;
    private static TestingPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        my = TestingMariaDb.start();
        pg = TestingPostgres.start();
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
        if (my != null) {
            my.close();
        }
    }

    private Path spec(String source, String target, String table, String... extra) throws Exception {
        Path password = dir.resolve("my-password");
        Files.writeString(password, TestingMariaDb.PASSWORD);
        Path spec = dir.resolve(table + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: mysql-%s
                connections:
                  my: { type: mysql, url: "%s", user: %s, password: "${file:%s}" }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: my, table: %s }
                    target: { connection: pg, table: public.%s, create: if-missing }
                """.formatted(table, my.jdbcUrl(source), my.user(), password, pg.jdbcUrl(target), pg.user(), table,
                table, table) + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    @Test
    void everyTypeLandsAsTheValueItWas() throws Exception {
        String source = my.createDatabase("types");
        String target = pg.createDatabase("my_types");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE types (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, b TINYINT(1), "
                    + "si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, "
                    + "iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, d DECIMAL(20,6), f FLOAT, db DOUBLE, "
                    + "bt BIT(10), dt DATE, dtm DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME(6), yr YEAR, c CHAR(5), "
                    + "vc VARCHAR(20), tx TEXT, l1 VARCHAR(10) CHARACTER SET latin1, bn BINARY(4), vb VARBINARY(10), "
                    + "bl BLOB, en ENUM('a','b c'), st SET('x','y','z'), js JSON, g GEOMETRY)");
            s.execute("INSERT INTO types VALUES (1, -128, 255, 1, -32768, 65535, -8388608, 16777215, -2147483648, "
                    + "4294967295, -9223372036854775808, 18446744073709551615, -99999999999999.999999, 1.5, "
                    + "-1.7976931348623157E308, b'1000000001', '1000-01-01', '1000-01-01 00:00:00.000001', "
                    + "'1970-01-01 00:00:01.000', '-838:59:59.000000', 1901, 'ab', 'héllo', '日本語 😀', 'café', "
                    + "0x00010203, 0xff, 0x00ff, 'b c', 'x,z', '{\"a\": [1, 2]}', ST_GeomFromText('POINT(1 2)'))");
            s.execute("INSERT INTO types VALUES (2, 127, 0, 0, 32767, 0, 8388607, 0, 2147483647, 0, "
                    + "9223372036854775807, 0, 99999999999999.999999, -0.25, 0.1, b'0000000001', '9999-12-31', "
                    + "'9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', '838:59:59.5', 2155, 'abcde', '', "
                    + "'', '', 0x00000000, X'', '', 'a', '', '[]', ST_GeomFromText('LINESTRING(0 0, 1 1)'))");
            s.execute("INSERT INTO types (id) VALUES (3)");
        }
        Path spec = spec(source, target, "types", "distribution: { method: range, key: id }", "degree: 2");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(List.of(
                "1|-128|255|true|-32768|65535|-8388608|16777215|-2147483648|4294967295|-9223372036854775808|"
                        + "18446744073709551615|-99999999999999.999999|1.5|-1.7976931348623157e+308|1000000001|"
                        + "1000-01-01|1000-01-01 00:00:00.000001|1970-01-01 00:00:01+00|-838:59:59|1901|ab|héllo|"
                        + "日本語 😀|café|\\x00010203|\\xff|\\x00ff|b c|x,z|{\"a\": [1, 2]}|"
                        + "\\x0101000000000000000000f03f0000000000000040",
                "2|127|0|false|32767|0|8388607|0|2147483647|0|9223372036854775807|0|99999999999999.999999|-0.25|0.1|"
                        + "0000000001|9999-12-31|9999-12-31 23:59:59.999999|2038-01-19 03:14:07.999+00|838:59:59.5|"
                        + "2155|abcde||||\\x00000000|\\x|\\x|a||[]|"
                        + "\\x010200000002000000" + "0".repeat(32) + "000000000000f03f".repeat(2),
                "3" + "|".repeat(31)), rows(target, "types"));
        assertEquals(List.of("id integer", "ti smallint", "tu smallint", "b boolean", "si smallint", "su integer",
                "mi integer", "mu integer", "i integer", "iu bigint", "bi bigint", "bu numeric(20,0)",
                "d numeric(20,6)", "f real", "db double precision", "bt bit(10)", "dt date",
                "dtm timestamp(6) without time zone", "ts timestamp(3) with time zone", "tm interval", "yr smallint",
                "c character(5)", "vc character varying(20)", "tx text", "l1 character varying(10)", "bn bytea",
                "vb bytea", "bl bytea", "en text", "st text", "js jsonb", "g bytea"), columns(target, "types"));
    }

    @Test
    void decimalsOfEveryShapeLandExactly() throws Exception {
        String source = my.createDatabase("decimals");
        String target = pg.createDatabase("my_decimals");
        List<String> values = List.of("0.0000000000", "0.0000000001", "-0.5000000000", "1.0000000000",
                "9999.0000000000", "10000.0000000000", "12345678.9000000000", "-100000000.0000000001",
                "99999999999999999999.9999999999", "-12.3456789012", "0.1000000000", "1000000.0000010000");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE d (id INT PRIMARY KEY, v DECIMAL(30,10), u BIGINT UNSIGNED)");
            for (int i = 0; i < values.size(); i++) {
                s.execute("INSERT INTO d VALUES (" + i + ", " + values.get(i) + ", " + unsigned(i) + ")");
            }
        }
        CliRun run = CliRun.of("run", spec(source, target, "d").toString());
        assertEquals(0, run.exitCode(), run.all());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            expected.add(i + "|" + values.get(i) + "|" + unsigned(i));
        }
        assertEquals(expected, rowsById(target, "d"));
    }

    /** Up to 1.7e19: past bigint's 9.2e18, within BIGINT UNSIGNED's 1.8e19. */
    private static java.math.BigInteger unsigned(int i) {
        return java.math.BigInteger.valueOf(i).multiply(new java.math.BigInteger("1537000000000000003"));
    }

    @Test
    void aZeroDateFailsNamingItsColumnAndValue() throws Exception {
        String source = my.createDatabase("zero");
        String target = pg.createDatabase("my_zero");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_mode = ''");
            s.execute("CREATE TABLE events (id INT PRIMARY KEY, at DATETIME)");
            s.execute("INSERT INTO events VALUES (1, '2024-01-01 10:00:00'), (2, '0000-00-00 00:00:00')");
        }
        CliRun run = CliRun.of("run", spec(source, target, "events").toString());
        assertEquals(1, run.exitCode(), run.all());
        assertTrue(run.err().contains("MY301") && run.err().contains("column at")
                && run.err().contains("'0000-00-00 00:00:00'"), run.err());
        assertFalse(run.err().contains(TestingMariaDb.PASSWORD), run.err());
        assertEquals("0", text(target, "SELECT count(*) FROM events"), "nothing of the partition is kept");

        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(20), doc JSON)");
            s.execute("INSERT INTO notes VALUES (1, 'fine', '{}'), (2, CONCAT('a', CHAR(0), 'b'), '{}')");
        }
        CliRun nul = CliRun.of("run", spec(source, target, "notes").toString());
        assertEquals(1, nul.exitCode(), nul.all());
        assertTrue(nul.err().contains("MY303") && nul.err().contains("column body") && nul.err().contains("at 1 of 3"),
                nul.err());
        assertEquals("0", text(target, "SELECT count(*) FROM notes"), "nothing of the partition is kept");
    }

    @Test
    void rejectsSetsBadValuesAsideAndNulBytesStripStripsThem() throws Exception {
        String source = my.createDatabase("badvalues");
        String target = pg.createDatabase("my_badvalues");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_mode = ''");
            s.execute("CREATE TABLE events (id INT PRIMARY KEY, at DATETIME, body VARCHAR(20))");
            s.execute("INSERT INTO events VALUES (1, '2024-01-01 10:00:00', 'fine'), (2, '0000-00-00 00:00:00', "
                    + "'zero'), (3, '2024-01-02 10:00:00', CONCAT('a', CHAR(0), 'b')), (4, NULL, 'also fine')");
        }
        CliRun rejected = CliRun.of("run", spec(source, target, "events", "rejects: { table: public.events_bad }")
                .toString());
        assertEquals(0, rejected.exitCode(), rejected.all());
        assertEquals("1|2024-01-01 10:00:00|fine,4|null|also fine", text(target, "SELECT string_agg(concat_ws('|', "
                + "id, coalesce(at::text, 'null'), body), ',' ORDER BY id) FROM events"));
        assertEquals("at:MY301:2|body:MY303:3", text(target, "SELECT string_agg(column_name || ':' || error_code || "
                + "':' || (row_data->>'id'), '|' ORDER BY row_data->>'id') FROM events_bad"));
        assertEquals("[\"a\", \"b\"]", text(target, "SELECT row_data->'body'->>'split-at-nul' FROM events_bad "
                + "WHERE row_data->>'id' = '3'"), "the NUL, which jsonb cannot hold, told apart from a \\0");

        String stripped = pg.createDatabase("my_stripped");
        CliRun strip = CliRun.of("run", spec(source, stripped, "events", "rejects: { table: public.events_bad }",
                "nul-bytes: strip").toString());
        assertEquals(0, strip.exitCode(), strip.all());
        assertEquals("ab", text(stripped, "SELECT body FROM events WHERE id = 3"));
        assertEquals("1", text(stripped, "SELECT count(*) FROM events_bad"), "only the zero date set aside");
    }

    @Test
    void readersAtDegreeTwoReadOneMomentWhileAWriterWrites() throws Exception {
        String source = my.createDatabase("moment");
        String target = pg.createDatabase("my_moment");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL) ENGINE = InnoDB");
            s.execute("INSERT INTO accounts SELECT seq, 100 FROM seq_1_to_200000");
        }
        // Each transaction moves 1 from an account of the first half to one of the second: the total never
        // changes, and readers of the two halves at two moments would see it changed.
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicLong moved = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = Thread.ofVirtual().start(() -> {
            try (Connection c = my.connect(source); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                java.util.Random random = new java.util.Random(7);
                while (writing.get()) {
                    s.execute("UPDATE accounts SET balance = balance - 1 WHERE id = " + (1 + random.nextInt(99_999)));
                    s.execute("UPDATE accounts SET balance = balance + 1 WHERE id = " + (100_001
                            + random.nextInt(99_999)));
                    c.commit();
                    moved.incrementAndGet();
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        while (moved.get() < 20) {
            Thread.onSpinWait(); // the writer is under way before the copy starts
        }
        // Eight partitions, two at a time: the later ones start well after the first (each SELECT alone is one
        // moment, so only partitions started at different times tell one snapshot from none).
        CliRun run = CliRun.of("run", spec(source, target, "accounts", "distribution: { method: range, key: id }",
                "degree: 2", "batch-size: 25000").toString());
        writing.set(false);
        writer.join();
        assertEquals(null, failed.get());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals("200000 20000000", text(target, "SELECT count(*) || ' ' || sum(balance) FROM accounts"),
                "one moment: the total of every account as it always was (" + moved.get() + " moves meanwhile)");
    }

    @Test
    void aPatternCopiesEveryTableButTheExcludedCreatingThem() throws Exception {
        String source = my.createDatabase("shop");
        String target = pg.createDatabase("my_shop");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            for (int t = 1; t <= 20; t++) {
                s.execute("CREATE TABLE t" + t + " (id BIGINT UNSIGNED PRIMARY KEY, v VARCHAR(10), at DATETIME(3))");
                s.execute("INSERT INTO t" + t + " SELECT seq, CONCAT('v', seq), '2024-02-29 12:00:00.125' FROM "
                        + "seq_1_to_" + (t * 50));
            }
            s.execute("CREATE TABLE tmp_scratch (id INT PRIMARY KEY)");
            s.execute("CREATE VIEW t_view AS SELECT id FROM t1");
        }
        Path password = dir.resolve("my-password");
        Files.writeString(password, TestingMariaDb.PASSWORD);
        Path spec = dir.resolve("shop.yaml");
        Files.writeString(spec, """
                version: 1
                name: mysql-shop
                max-parallel-streams: 3
                connections:
                  my: { type: mysql, url: "%s", user: %s, password: "${file:%s}" }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: shop
                    source: { connection: my, table: "*", exclude: [tmp_*] }
                    target: { connection: pg, table: "public.{table}", create: if-missing }
                    distribution: { method: range, key: primary-key }
                    degree: 2
                """.formatted(my.jdbcUrl(source), my.user(), password, pg.jdbcUrl(target), pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals("20", text(target, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
                "20 tables, the excluded one and the view left out");
        for (int t = 1; t <= 20; t++) {
            assertEquals((t * 50) + " " + (t * 50 * (t * 50 + 1) / 2) + " 2024-02-29 12:00:00.125", text(target,
                    "SELECT count(*) || ' ' || sum(id) || ' ' || min(at) FROM t" + t), "t" + t);
        }
    }

    @Test
    void aRunKilledMidCopyIsResumedOrRunAfreshToExactlyTheSource() throws Exception {
        String source = my.createDatabase("kill");
        String target = pg.createDatabase("my_kill");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), at DATETIME)");
            s.execute("INSERT INTO items SELECT seq, CONCAT('item ', seq), seq / 100, '2020-01-01' + INTERVAL seq "
                    + "MINUTE FROM seq_1_to_400000");
        }
        Path spec = spec(source, target, "items", "distribution: { method: range, key: id }", "degree: 2",
                "batch-size: 20000", "load-mode: truncate");
        String exact = "400000 400000 80000200000 800002000.00";
        String check = "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || sum(id) || ' ' || sum(price) FROM items";
        for (String recovery : List.of("resume", "fresh")) {
            String runId = "kill-" + recovery;
            Path log = dir.resolve(runId + ".log");
            Process child = startSluice(log, "run", spec.toString(), "--run-id", runId);
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
            while (donePartitions(target, runId) < 3) {
                assertTrue(child.isAlive(), () -> read(log));
                assertTrue(System.nanoTime() < deadline, () -> read(log));
                Thread.sleep(5);
            }
            child.destroyForcibly(); // SIGKILL, partitions under way
            assertTrue(child.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(donePartitions(target, runId) < 20, "killed before the end");
            CliRun after = recovery.equals("resume") ? CliRun.of("run", spec.toString(), "--resume", runId)
                    : CliRun.of("run", spec.toString());
            assertEquals(0, after.exitCode(), after.all());
            assertEquals(exact, text(target, check), recovery);
        }
    }

    @Test
    void aTableLargerThanTheHeapStreamsThroughAHeapOf64Mb() throws Exception {
        String source = my.createDatabase("big");
        String target = pg.createDatabase("my_big");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE wide (id INT PRIMARY KEY, body TEXT NOT NULL)");
            s.execute("INSERT INTO wide SELECT seq, REPEAT(CHAR(65 + seq % 26), 1000) FROM seq_1_to_250000");
        }
        // One partition of ~250 MB through a 64 MB heap: rows stream from the driver into COPY, never held whole
        Path log = dir.resolve("big.log");
        Process child = startSluice(List.of("-Xmx64m"), log, "run", spec(source, target, "wide").toString());
        assertTrue(child.waitFor(300, java.util.concurrent.TimeUnit.SECONDS), () -> read(log));
        assertEquals(0, child.exitValue(), read(log));
        assertEquals("250000 250000000 31250125000", text(target, "SELECT count(*) || ' ' || sum(length(body)) || ' '"
                + " || sum(id) FROM wide"));
    }

    @Test
    void aUserWithoutLockTablesIsRefusedAtPlanTimeAndConsistencyNoneGoesOn() throws Exception {
        String source = my.createDatabase("grants");
        String target = pg.createDatabase("my_grants");
        try (Connection c = my.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            s.execute("INSERT INTO t SELECT seq FROM seq_1_to_1000");
            s.execute("CREATE USER 'plain_" + source + "'@'%' IDENTIFIED BY '" + TestingMariaDb.PASSWORD + "'");
            s.execute("GRANT SELECT ON `" + source + "`.* TO 'plain_" + source + "'@'%'");
        }
        Path spec = spec(source, target, "t", "distribution: { method: range, key: id }", "degree: 2");
        Files.writeString(spec, Files.readString(spec).replace("user: " + my.user() + ",", "user: plain_" + source
                + ","));
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(4, plan.exitCode(), plan.all());
        assertTrue(plan.err().contains("MY103") && plan.err().contains("LOCK TABLES privilege")
                && plan.err().contains("consistency: none"), plan.err());
        // The refusal is Sluice's to tell: not also the driver's own log line of the server's error.
        assertTrue(!plan.all().contains("ErrorPacket") && !plan.all().contains("WARN"), plan.all());
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());
        assertTrue(lint.exitCode() != 0 && lint.all().contains("error[MY103]") && lint.all().contains("LOCK TABLES"),
                lint.all());
        Files.writeString(spec, Files.readString(spec) + "    consistency: none\n");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals("1000", text(target, "SELECT count(*) FROM t"));
    }

    private static long donePartitions(String database, String runId) {
        try {
            return Long.parseLong(text(database, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '"
                    + runId + "' AND state = 'done'"));
        } catch (SQLException e) {
            return 0; // the ledger is not there yet
        }
    }

    private static Process startSluice(Path log, String... args) throws java.io.IOException {
        return startSluice(List.of(), log, args);
    }

    private static Process startSluice(List<String> jvm, Path log, String... args) throws java.io.IOException {
        List<String> command = SluiceProcess.command(jvm, List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    private static List<String> rows(String database, String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            List<String> columns = columns(database, table).stream().map(t -> t.substring(0, t.indexOf(' ')))
                    .toList();
            String select = "SELECT concat_ws('|', " + String.join(", ", columns.stream()
                    .map(n -> "coalesce(" + n + "::text, '')").toList()) + ") FROM " + table + " ORDER BY 1";
            try (ResultSet rs = s.executeQuery(select)) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
        }
        return rows;
    }

    private static List<String> rowsById(String database, String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT concat_ws('|', id, v, u) FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    private static List<String> columns(String database, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT attname || ' ' || format_type(atttypid, atttypmod) FROM "
                     + "pg_attribute WHERE attrelid = '" + table + "'::regclass AND attnum > 0 AND NOT attisdropped "
                     + "ORDER BY attnum")) {
            while (rs.next()) {
                columns.add(rs.getString(1));
            }
        }
        return columns;
    }

    private static String text(String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
