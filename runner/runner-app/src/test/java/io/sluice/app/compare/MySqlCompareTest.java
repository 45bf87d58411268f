package io.sluice.app.compare;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
import io.sluice.testkit.TestingMariaDb;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sluice compare} from a real MariaDB into a real PostgreSQL: both servers hash the same text of each value
 * (MariaDB printing its values as PostgreSQL prints the loaded ones), so a loaded table of every comparable type is
 * equal, and each planted difference is named by its key; a column whose text the servers print apart is refused.
 */
class MySqlCompareTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
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

    @Test
    void everyComparableTypeIsEqualAfterARunAndEachPlantedDifferenceIsNamed() throws Exception {
        String source = my.createDatabase("cmp_types");
        String target = pg.createDatabase("cmp_my_types");
        my(source, "CREATE TABLE types (id INT PRIMARY KEY, ti TINYINT, b TINYINT(1), su SMALLINT UNSIGNED, "
                + "bu BIGINT UNSIGNED, d DECIMAL(20,6), bt BIT(10), dt DATE, dtm DATETIME(6), dt0 DATETIME, "
                + "ts TIMESTAMP(3) NULL, tm TIME(6), tm0 TIME, yr YEAR, c CHAR(5), vc VARCHAR(20), tx TEXT, "
                + "l1 VARCHAR(10) CHARACTER SET latin1, bn BINARY(4), bl BLOB, en ENUM('a','b c'), st SET('x','y'), "
                + "g GEOMETRY)",
                "INSERT INTO types VALUES (1, -128, 1, 65535, 18446744073709551615, -99999999999999.999999, "
                        + "b'1000000001', '1000-01-01', '1000-01-01 00:00:00.000001', '2024-02-29 23:59:59', "
                        + "'1970-01-01 00:00:01.000', '-838:59:59.000000', '00:00:00', 1901, 'ab', 'héllo', "
                        + "'日本語 😀, \"q\"', 'café', 0x00010203, 0x00ff, 'b c', 'x,y', ST_GeomFromText('POINT(1 2)'))",
                "INSERT INTO types VALUES (2, 127, 0, 0, 0, 0.5, b'0000000001', '9999-12-31', "
                        + "'9999-12-31 23:59:59.999999', '2000-01-01 00:00:00', '2038-01-19 03:14:07.5', "
                        + "'838:59:59.5', '100:00:01', 2155, 'abcde', '', '', '', 0x00000000, '', 'a', '', "
                        + "ST_GeomFromText('LINESTRING(0 0, 1 1)'))",
                "INSERT INTO types (id) VALUES (3)");
        // Enough rows to digest by bucket, in two partitions read in one snapshot.
        my(source, "SET SESSION max_recursive_iterations = 100000", "INSERT INTO types (id, vc, dtm) WITH RECURSIVE s (n) AS (SELECT 10 UNION ALL SELECT n + 1 FROM s "
                + "WHERE n < 20009) SELECT n, CONCAT('v', n), TIMESTAMPADD(SECOND, n, '2024-01-01 00:00:00.25') "
                + "FROM s");
        Path spec = spec(source, target, "types", "distribution: { method: range, key: id }", "degree: 2",
                "columns:", "  vc: { rename: v_c }");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        // A created table has no key yet (compared as a multiset): keyed, each difference is named by its key.
        pg(target, "ALTER TABLE types ADD PRIMARY KEY (id)");
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        assertTrue(equal.out().contains("result:      equal"), equal.out());

        pg(target, "UPDATE types SET dtm = dtm + interval '1 microsecond' WHERE id = 2",
                "UPDATE types SET tm = interval '-838:59:58' WHERE id = 1",
                "UPDATE types SET v_c = 'v edited' WHERE id = 4321",
                "DELETE FROM types WHERE id = 17000",
                "INSERT INTO types (id) VALUES (-5)");
        JsonNode stream = CompareJson.firstStream(spec, 5);
        assertEquals(20_003, stream.get("sourceRows").asLong());
        assertEquals(List.of("changed id=1 [tm]", "changed id=2 [dtm]", "changed id=4321 [v_c]", "extra id=-5 []",
                "missing id=17000 []"), CompareJson.listed(stream));
    }

    @Test
    void aKeyRangeIsSelectedOnTheTargetSoOnlyTheDifferingPartitionIsListed() throws Exception {
        String source = my.createDatabase("cmp_ranges");
        String target = pg.createDatabase("cmp_my_ranges");
        my(source, "SET SESSION max_recursive_iterations = 100000",
                "CREATE TABLE notes (id BIGINT PRIMARY KEY, note VARCHAR(30))",
                "INSERT INTO notes WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 6000) "
                        + "SELECT n, CONCAT('note ', n) FROM s");
        Path spec = spec(source, target, "notes", "distribution: { method: range, key: id }", "degree: 2",
                "batch-size: 1000");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        pg(target, "ALTER TABLE notes ADD PRIMARY KEY (id)", "UPDATE notes SET note = 'edited' WHERE id = 4321");
        JsonNode stream = CompareJson.firstStream(spec, 5);
        assertEquals(List.of("changed id=4321 [note]"), CompareJson.listed(stream));
        assertTrue(stream.get("compared").asString().contains("partition(s) by digest, 1 listed row by row"),
                stream.toString());
    }

    @Test
    void aQuerysFilterAndComputedColumnsAreComparedAsTheCopyMadeThem() throws Exception {
        String source = my.createDatabase("cmp_query");
        String target = pg.createDatabase("cmp_my_query");
        my(source, "SET SESSION max_recursive_iterations = 100000",
                "CREATE TABLE notes (id BIGINT PRIMARY KEY, note VARCHAR(30))",
                "INSERT INTO notes WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 3000) "
                        + "SELECT n, CONCAT('note ', n) FROM s");
        pg(target, "CREATE TABLE notes (id bigint PRIMARY KEY, shout varchar(30), twice bigint)");
        Path spec = querySpec(source, target, "notes",
                "SELECT id, UPPER(note) AS shout, id * 2 AS twice FROM notes WHERE id % 3 <> 0");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        assertTrue(equal.out().contains("source 2,000, target 2,000"), equal.out());

        // A row the filter leaves out is extra on the target; a computed value changed is named.
        pg(target, "INSERT INTO notes VALUES (3, 'NOTE 3', 6)", "UPDATE notes SET twice = 0 WHERE id = 5");
        assertEquals(List.of("changed id=5 [twice]", "extra id=3 []"),
                CompareJson.listed(CompareJson.firstStream(spec, 5)));

        // A mask MySQL cannot compute: refused as the copy refuses it, before anything is read.
        Path masked = dir.resolve("masked.yaml");
        Files.writeString(masked, Files.readString(spec) + "    columns:\n      shout: { mask: redact }\n");
        CliRun refused = CliRun.of("compare", masked.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("SPI009") && refused.err().contains("cannot compute columns"),
                refused.err());
    }

    @Test
    void aKeyOfSeveralTextColumnsIsOrderedAlikeOnBothServers() throws Exception {
        String source = my.createDatabase("cmp_textkey");
        String target = pg.createDatabase("cmp_my_textkey");
        // Keys that sort apart by collation: accents, case, CJK, a trailing space and a tab (PAD SPACE would put
        // 'a' after 'a\t'); few enough rows to be listed whole, so every key's place counts.
        my(source, "SET SESSION max_recursive_iterations = 100000",
                "CREATE TABLE pairs (country VARCHAR(10), code VARCHAR(20), label VARCHAR(20), "
                        + "PRIMARY KEY (country, code)) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
                "INSERT INTO pairs WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 3000) "
                        + "SELECT CONCAT('c', n % 7), CONCAT(ELT(n % 5 + 1, 'Ä', 'a', 'Z', '日', 'é'), n), "
                        + "CONCAT('l ', n) FROM s",
                "INSERT INTO pairs VALUES ('x', 'a', 'plain'), ('x', 'a\t', 'tab'), ('x', 'a ', 'space'), "
                        + "('x', 'A', 'upper')");
        Path spec = spec(source, target, "pairs");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        pg(target, "ALTER TABLE pairs ADD PRIMARY KEY (country, code)");
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());

        pg(target, "UPDATE pairs SET label = 'changed' WHERE country = 'c3' AND code = 'Ä10'",
                "DELETE FROM pairs WHERE country = 'x' AND code = 'a '");
        assertEquals(List.of("changed country=c3, code=Ä10 [label]", "missing country=x, code=a  []"),
                CompareJson.listed(CompareJson.firstStream(spec, 5)));
    }

    @Test
    void aTableWithoutAKeyIsComparedAsAMultiset() throws Exception {
        String source = my.createDatabase("cmp_nokey");
        String target = pg.createDatabase("cmp_my_nokey");
        my(source, "CREATE TABLE readings (sensor INT, at DATETIME(3), note VARCHAR(10))",
                "INSERT INTO readings VALUES (1, '2024-01-01 10:00:00.5', 'a'), (1, '2024-01-01 10:00:00.5', 'a'), "
                        + "(2, NULL, NULL), (3, '2024-01-02 00:00:00', '')");
        Path spec = spec(source, target, "readings");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(0, CliRun.of("compare", spec.toString()).exitCode());
        pg(target, "DELETE FROM readings WHERE ctid = (SELECT min(ctid) FROM readings WHERE sensor = 1)");
        JsonNode stream = CompareJson.firstStream(spec, 5);
        assertEquals(1, stream.get("differenceCount").asLong(), stream.toString());
        assertEquals(List.of("missing row=(1,2024-01-01 10:00:00.5,a) []"), CompareJson.listed(stream));
    }

    @Test
    void doublesCompareAsPostgresPrintsThemAndASingleFloatIsRefusedNamingIt() throws Exception {
        String source = my.createDatabase("cmp_float");
        String target = pg.createDatabase("cmp_my_float");
        // Doubles each server prints its own way (1e20 and 1e+20, 0.000015 and 1.5e-05), the extremes, integers past
        // 2^53 whose shortest text sits on a rounding bound (PostgreSQL prints more digits there), and many more.
        my(source, "SET SESSION max_recursive_iterations = 100000",
                "CREATE TABLE m (id INT PRIMARY KEY, v DOUBLE, f FLOAT)",
                "INSERT INTO m VALUES (1, 0.1, 0.1), (2, 1e20, 1), (3, 0.000015, 2), (4, 1.7976931348623157e308, 3), "
                        + "(5, 5e-324, 4), (6, 2.191999533145689e16, 5), (7, 3.49373e20, 6), (8, -123.456, 7), "
                        + "(9, 0, 8), (10, NULL, NULL), (11, 100000000000000, 9), (12, 1e15, 10)",
                "INSERT INTO m WITH RECURSIVE s (n) AS (SELECT 100 UNION ALL SELECT n + 1 FROM s WHERE n < 3000) "
                        + "SELECT n, (RAND(n) - 0.5) * POW(10, n % 60 - 30), n FROM s");
        Path spec = spec(source, target, "m", "columns:", "  f: { exclude: true }");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        pg(target, "ALTER TABLE m ADD PRIMARY KEY (id)");
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());

        // The next double after 0.1, and a sign: each named.
        pg(target, "UPDATE m SET v = 0.10000000000000002 WHERE id = 1", "UPDATE m SET v = -v WHERE id = 500");
        assertEquals(List.of("changed id=1 [v]", "changed id=500 [v]"),
                CompareJson.listed(CompareJson.firstStream(spec, 5)));

        // A FLOAT prints 6 digits on MariaDB, fewer than PostgreSQL's real keeps: refused, naming it.
        pg(target, "ALTER TABLE m ADD COLUMN f real");
        Path floats = spec(source, target, "m");
        CliRun refused = CliRun.of("compare", floats.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("MY203") && refused.err().contains("`f`")
                && refused.err().contains("float"), refused.err());
        assertFalse(refused.all().contains(TestingMariaDb.PASSWORD), refused.all());
    }

    @Test
    void verifyCompareChecksTheLoadAndAColumnItCannotPrintIsRefusedAtPlan() throws Exception {
        String source = my.createDatabase("cmp_verify");
        String target = pg.createDatabase("cmp_my_verify");
        my(source, "CREATE TABLE k (id INT PRIMARY KEY, v VARCHAR(10), at DATETIME(3), amount FLOAT)",
                "INSERT INTO k VALUES (1, 'a', '2024-01-01 10:00:00.5', 0.1), (2, NULL, NULL, NULL), "
                        + "(3, 'c', '2024-01-02 00:00:00', 1e20)");
        pg(target, "CREATE TABLE k (id int PRIMARY KEY, v varchar(10), at timestamp(3))",
                "INSERT INTO k VALUES (9, 'old', NULL)");
        Path summary = dir.resolve("verified.json");
        Path spec = spec(source, target, "k", "load-mode: truncate", "verify: compare", "columns:",
                "  amount: { exclude: true }");
        CliRun run = CliRun.of("run", spec.toString(), "--summary-json", summary.toString());
        assertEquals(0, run.exitCode(), run.all());
        JsonNode verification = JSON.readTree(Files.readString(summary)).get("streams").get(0).get("verification");
        assertEquals("passed", verification.get("status").asString(), verification.toString());
        assertTrue(verification.get("detail").asString().startsWith("3 rows in the source's snapshot, 3 loaded, "
                + "equal"), verification.toString());

        // With the FLOAT column copied, the check could not print it: refused at plan, the target untouched.
        pg(target, "TRUNCATE k", "ALTER TABLE k ADD COLUMN amount real", "INSERT INTO k VALUES (9, 'old', NULL, NULL)");
        Path floats = spec(source, target, "k", "load-mode: truncate", "verify: compare");
        CliRun plan = CliRun.of("plan", floats.toString());
        assertEquals(4, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("MY203") && plan.all().contains("`amount`"), plan.all());
        CliRun refused = CliRun.of("run", floats.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        try (Connection c = pg.connect(target); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT string_agg(id || ':' || v, ',') FROM k")) {
            rs.next();
            assertEquals("9:old", rs.getString(1), "nothing written");
        }
    }

    @Test
    void writesDuringTheCompareShowNoPhantomDifferencesAndSigtermEndsItPromptly() throws Exception {
        String source = my.createDatabase("cmp_busy");
        String target = pg.createDatabase("cmp_my_busy");
        // The note goes through a function that waits while the test holds a named lock: the compare then stands
        // inside its source snapshot while the test changes both sides.
        my(source, "SET SESSION max_recursive_iterations = 100000",
                "CREATE TABLE events (id BIGINT PRIMARY KEY, note VARCHAR(30))",
                "INSERT INTO events WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 5000) "
                        + "SELECT n, CONCAT('n ', n) FROM s",
                "CREATE FUNCTION gate(t VARCHAR(30)) RETURNS VARCHAR(30) NOT DETERMINISTIC NO SQL "
                        + "BEGIN DO GET_LOCK('sluice_gate', 300); DO RELEASE_LOCK('sluice_gate'); RETURN t; END");
        pg(target, "CREATE TABLE events (id bigint PRIMARY KEY, note varchar(30))");
        Path spec = querySpec(source, target, "events", "SELECT id, gate(note) AS note FROM events");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        // One real difference, planted before the compare begins.
        pg(target, "UPDATE events SET note = 'planted' WHERE id = 30");
        try (Connection gate = my.connect(source); Statement s = gate.createStatement()) {
            s.execute("DO GET_LOCK('sluice_gate', 10)");
            Path log = dir.resolve("busy.log");
            Process compare = LedgerFixture.startSluice(log, "compare", spec.toString());
            LedgerFixture.waitUntil(compare, log, () -> waitingAtTheGate(source) > 0);
            my(source, "INSERT INTO events VALUES (5001, 'during')", "UPDATE events SET note = 'x' WHERE id = 10",
                    "DELETE FROM events WHERE id = 20");
            pg(target, "UPDATE events SET note = 'during' WHERE id = 31", "DELETE FROM events WHERE id = 32");
            s.execute("DO RELEASE_LOCK('sluice_gate')");
            assertTrue(compare.waitFor(120, TimeUnit.SECONDS));
            String out = Files.readString(log);
            assertEquals(5, compare.exitValue(), out);
            assertTrue(out.contains("changed id=30") && out.contains("1 row(s) differ"),
                    "only the difference there was when it began, both sides as of one moment:\n" + out);
        }
        assertEquals(List.of("changed id=10 [note]", "changed id=30 [note]", "changed id=31 [note]",
                "extra id=20 []", "missing id=32 []", "missing id=5001 []"),
                CompareJson.listed(CompareJson.firstStream(spec, 5)), "the next compare sees the changes");

        // SIGTERM while it waits: it ends at once with 130, and nothing is written.
        String before = pgScalar(target, "SELECT md5(string_agg(id || ':' || note, ',' ORDER BY id)) FROM events");
        try (Connection gate = my.connect(source); Statement s = gate.createStatement()) {
            s.execute("DO GET_LOCK('sluice_gate', 10)");
            Path log = dir.resolve("term.log");
            Process compare = LedgerFixture.startSluice(log, "compare", spec.toString());
            LedgerFixture.waitUntil(compare, log, () -> waitingAtTheGate(source) > 0);
            compare.destroy();
            assertTrue(compare.waitFor(30, TimeUnit.SECONDS), "ended promptly");
            String out = Files.readString(log);
            assertEquals(130, compare.exitValue(), out);
            assertTrue(out.contains("compare interrupted; nothing was written"), out);
            s.execute("DO RELEASE_LOCK('sluice_gate')");
        }
        assertEquals(before, pgScalar(target, "SELECT md5(string_agg(id || ':' || note, ',' ORDER BY id)) "
                + "FROM events"), "nothing written");
    }

    /** Statements of the compare waiting for the test's named lock. */
    private static long waitingAtTheGate(String database) throws Exception {
        try (Connection c = my.connect(database); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.PROCESSLIST "
                     + "WHERE STATE = 'User lock'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String pgScalar(String database, String query) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void my(String database, String... statements) throws Exception {
        try (Connection c = my.connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static void pg(String database, String... statements) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private Path spec(String source, String target, String table, String... extra) throws Exception {
        return write(source, target, table, "table: " + table, ", create: if-missing", extra);
    }

    /** A stream named {@code table} reading {@code query} into the existing {@code public.<table>}. */
    private Path querySpec(String source, String target, String table, String query) throws Exception {
        return write(source, target, table, "query: \"" + query + "\"", "");
    }

    private Path write(String source, String target, String table, String read, String targetOptions,
                       String... extra) throws Exception {
        Path password = dir.resolve("my-password");
        Files.writeString(password, TestingMariaDb.PASSWORD);
        Path spec = dir.resolve(table + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: cmp-mysql-%s
                connections:
                  my: { type: mysql, url: "%s", user: %s, password: "${file:%s}" }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: my, %s }
                    target: { connection: pg, table: public.%s%s }
                """.formatted(table, my.jdbcUrl(source), my.user(), password, pg.jdbcUrl(target), pg.user(), table,
                read, table, targetOptions)
                + String.join("", Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

}
