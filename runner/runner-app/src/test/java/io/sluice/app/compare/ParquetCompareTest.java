package io.sluice.app.compare;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
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
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sluice compare} from Parquet files (read by DuckDB) into a real PostgreSQL: DuckDB prints each value as
 * PostgreSQL prints the loaded one, both hash the same text; the spec's renames, masks and filter are compared as the
 * copy applied them; each planted difference is named by its key; a column the two print apart is refused, at plan
 * for {@code verify: compare}.
 */
class ParquetCompareTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path ORDERS = Path.of("../../examples/data").toAbsolutePath().normalize();
    private static TestingPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        pg = TestingPostgres.start();
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void parquetFilesAreEqualAfterARunAndEachPlantedDifferenceIsNamed() throws Exception {
        String target = pg.createDatabase("cmp_parquet");
        Path spec = spec(target, "orders", "files: \"" + ORDERS + "/orders-*.parquet\"",
                "create: if-missing", "columns:", "  o_clerk: { rename: clerk }", "  o_comment: { mask: redact }",
                "  o_orderpriority: { expression: \"lower(o_orderpriority)\" }", "  o_shippriority: { exclude: true }");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        sql(target, "ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)");
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        assertTrue(equal.out().contains("result:      equal"), equal.out());

        long status = Long.parseLong(scalar(target, "SELECT count(*) FROM orders"));
        String some = scalar(target, "SELECT min(o_orderkey) FROM orders");
        String other = scalar(target, "SELECT max(o_orderkey) FROM orders");
        sql(target, "UPDATE orders SET clerk = 'Clerk#edited' WHERE o_orderkey = " + some,
                "UPDATE orders SET o_totalprice = o_totalprice + 0.01 WHERE o_orderkey = " + other,
                "DELETE FROM orders WHERE o_orderkey = (SELECT min(o_orderkey) FROM orders WHERE o_orderkey > " + some
                        + ")",
                "INSERT INTO orders (o_orderkey, o_custkey, o_orderstatus) VALUES (-1, 1, 'O')");
        JsonNode stream = CompareJson.firstStream(spec, 5);
        assertEquals(status, stream.get("sourceRows").asLong());
        List<String> listed = CompareJson.listed(stream);
        assertEquals(4, listed.size(), listed.toString());
        assertTrue(listed.contains("changed o_orderkey=" + some + " [clerk]")
                && listed.contains("changed o_orderkey=" + other + " [o_totalprice]")
                && listed.contains("extra o_orderkey=-1 []")
                && listed.stream().anyMatch(d -> d.startsWith("missing o_orderkey=")), listed.toString());
    }

    @Test
    void aFilterOverTheFilesIsComparedAsTheCopyMadeIt() throws Exception {
        String target = pg.createDatabase("cmp_parquet_filter");
        Path spec = spec(target, "finished", "query: \"select o_orderkey, o_custkey, o_totalprice from read_parquet('"
                + ORDERS + "/orders-*.parquet') where o_orderstatus = 'F'\"", "create: if-missing");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(target, "ALTER TABLE finished ADD PRIMARY KEY (o_orderkey)");
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());

        // An order the filter leaves out is extra on the target.
        String open = scalarOfFiles("select min(o_orderkey) from read_parquet('" + ORDERS
                + "/orders-*.parquet') where o_orderstatus = 'O'");
        sql(target, "INSERT INTO finished VALUES (" + open + ", 1, 1.00)");
        assertEquals(List.of("extra o_orderkey=" + open + " []"),
                CompareJson.listed(CompareJson.firstStream(spec, 5)));
    }

    @Test
    void aKeyOfSeveralTextColumnsFilesWithoutAKeyAndSigtermWhileItWaits() throws Exception {
        String target = pg.createDatabase("cmp_parquet_keys");
        Path pairs = dir.resolve("pairs.parquet");
        Path readings = dir.resolve("readings.parquet");
        // Keys that sort apart by collation (accents, case, CJK, a trailing space, a tab): both sides must walk
        // them in one order, by code point, or a listed range shows phantom missing and extra rows.
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT 'c' || (i % 7) AS country, ['Ä', 'a', 'Z', '日', 'é'][i % 5 + 1] || i AS code, "
                    + "'l ' || i AS label FROM range(1, 3001) t(i) UNION ALL SELECT * FROM (VALUES ('x', 'a', 'plain'), "
                    + "('x', 'a' || chr(9), 'tab'), ('x', 'a ', 'space'), ('x', 'A', 'upper'))) TO '" + pairs
                    + "' (FORMAT parquet)");
            s.execute("COPY (SELECT * FROM (VALUES (1, TIMESTAMP '2024-01-01 10:00:00.5', 'a'), "
                    + "(1, TIMESTAMP '2024-01-01 10:00:00.5', 'a'), (2, NULL, NULL), (3, TIMESTAMP '2024-01-02', ''))"
                    + " t(sensor, taken, note)) TO '" + readings + "' (FORMAT parquet)");
        }
        Path keyed = spec(target, "pairs", "files: \"" + pairs + "\"", "create: if-missing");
        assertEquals(0, CliRun.of("run", keyed.toString()).exitCode());
        sql(target, "ALTER TABLE pairs ADD PRIMARY KEY (country, code)");
        CliRun equal = CliRun.of("compare", keyed.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        sql(target, "UPDATE pairs SET label = 'changed' WHERE country = 'c3' AND code = 'Ä10'",
                "DELETE FROM pairs WHERE country = 'x' AND code = 'a '",
                "INSERT INTO pairs VALUES ('x', 'a' || chr(10), 'newline')");
        assertEquals(List.of("changed country=c3, code=Ä10 [label]", "extra country=x, code=a\n []",
                "missing country=x, code=a  []"), CompareJson.listed(CompareJson.firstStream(keyed, 5)));

        // Without a key: rows are counted by their whole value; one of two equal rows gone is one missing row.
        Path keyless = spec(target, "readings", "files: \"" + readings + "\"", "create: if-missing");
        assertEquals(0, CliRun.of("run", keyless.toString()).exitCode());
        assertEquals(0, CliRun.of("compare", keyless.toString()).exitCode());
        sql(target, "DELETE FROM readings WHERE ctid = (SELECT min(ctid) FROM readings WHERE sensor = 1)");
        JsonNode stream = CompareJson.firstStream(keyless, 5);
        assertEquals(4, stream.get("sourceRows").asLong(), stream.toString());
        assertEquals(List.of("missing row=(1,2024-01-01 10:00:00.5,a) []"), CompareJson.listed(stream));

        // SIGTERM while the target's read waits for a lock: it ends at once with 130, having written nothing.
        try (Connection lock = pg.connect(target); Statement s = lock.createStatement()) {
            lock.setAutoCommit(false);
            s.execute("LOCK TABLE pairs IN ACCESS EXCLUSIVE MODE");
            Path log = dir.resolve("term.log");
            Process compare = LedgerFixture.startSluice(log, "compare", keyed.toString());
            LedgerFixture.waitUntil(compare, log, () -> Long.parseLong(scalar(target,
                    "SELECT count(*) FROM pg_locks WHERE relation = 'pairs'::regclass AND NOT granted")) > 0);
            compare.destroy();
            assertTrue(compare.waitFor(30, TimeUnit.SECONDS), "ended promptly");
            String out = Files.readString(log);
            assertEquals(130, compare.exitValue(), out);
            assertTrue(out.contains("compare interrupted; nothing was written"), out);
            lock.rollback();
        }
        assertEquals("3004", scalar(target, "SELECT count(*) FROM pairs"), "nothing written");
    }

    @Test
    void floatsCompareAsPostgresPrintsThemAndOneStepIsSeen() throws Exception {
        String target = pg.createDatabase("cmp_duck_floats");
        sql(target, "CREATE TABLE fl (id int PRIMARY KEY, d float8, r real, w float8)");
        // NaN, the infinities, a negative zero, the extremes, integers past 2^53 whose shortest text sits on a
        // rounding bound, and thousands spread over sixty powers of ten; reals and reals widened into float8.
        Path spec = spec(target, "fl", "query: \"select i::integer as id, case i when 1 then 'nan'::double "
                + "when 2 then 'inf'::double when 3 then '-inf'::double when 4 then 0.1::double "
                + "when 5 then 1e20::double when 6 then 5e-324::double when 7 then 2.191999533145689e16::double "
                + "when 8 then '-0.0'::double when 9 then 1.7976931348623157e308::double when 10 then null "
                + "else ((hash(i) % 1000000)::double - 500000) / 7 * pow(10, (i % 60) - 30) end as d, "
                + "case i when 1 then 'nan'::float when 2 then 'inf'::float else ((hash(i) % 100000)::float / 7) end "
                + "as r, (i / 3)::float as w from range(1, 3001) t(i)\"", "load-mode: truncate");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());

        // The next double after 0.1 and a real turned NaN: each named.
        sql(target, "UPDATE fl SET d = 0.10000000000000002 WHERE id = 4", "UPDATE fl SET r = 'NaN' WHERE id = 10");
        assertEquals(List.of("changed id=10 [r]", "changed id=4 [d]"),
                CompareJson.listed(CompareJson.firstStream(spec, 5)));
    }

    @Test
    void aColumnTheTwoPrintApartIsRefusedAndVerifyCompareRefusesItAtPlan() throws Exception {
        String target = pg.createDatabase("cmp_duck_interval");
        sql(target, "CREATE TABLE m (id int PRIMARY KEY, v interval, at timestamptz, d numeric(12,2), u uuid, b bytea)");
        Path spec = spec(target, "m", "query: \"select i::integer as id, to_seconds(i::bigint) as v, "
                + "timestamptz '2024-01-01 10:00:00.25+02' + i * interval '1 second' as at, "
                + "(i * 1.25)::decimal(12,2) as d, ('00000000-0000-0000-0000-00000000000' || (i % 10))::uuid as u, "
                + "'\\\\x00ff'::blob as b from range(1, 2001) t(i)\"", "load-mode: truncate");
        CliRun loaded = CliRun.of("run", spec.toString());
        assertEquals(0, loaded.exitCode(), loaded.all());
        CliRun refused = CliRun.of("compare", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("DUCK202") && refused.err().contains("column v")
                && refused.err().contains("INTERVAL"), refused.err());

        // Without the interval: the instants, decimals, UUIDs and bytes compare equal, as verify: compare checks.
        Path summary = dir.resolve("summary.json");
        sql(target, "ALTER TABLE m DROP COLUMN v");
        Path verified = spec(target, "m", "query: \"select i::integer as id, "
                + "timestamptz '2024-01-01 10:00:00.25+02' + i * interval '1 second' as at, "
                + "(i * 1.25)::decimal(12,2) as d, ('00000000-0000-0000-0000-00000000000' || (i % 10))::uuid as u, "
                + "'\\\\x00ff'::blob as b from range(1, 2001) t(i)\"", "load-mode: truncate", "verify: compare");
        CliRun run = CliRun.of("run", verified.toString(), "--summary-json", summary.toString());
        assertEquals(0, run.exitCode(), run.all());
        JsonNode verification = JSON.readTree(Files.readString(summary)).get("streams").get(0).get("verification");
        assertEquals("passed", verification.get("status").asString(), verification.toString());

        sql(target, "CREATE TABLE f (id int PRIMARY KEY, v interval)");
        Path floats = spec(target, "f", "query: \"select i::integer as id, to_seconds(i::bigint) as v "
                + "from range(1, 11) t(i)\"",
                "load-mode: truncate", "verify: compare");
        CliRun plan = CliRun.of("plan", floats.toString());
        assertEquals(4, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("DUCK202") && plan.all().contains("column v"), plan.all());
        assertEquals(4, CliRun.of("run", floats.toString()).exitCode());
        assertEquals("0", scalar(target, "SELECT count(*) FROM f"), "nothing written");
    }

    private Path spec(String target, String table, String source, String... extra) throws Exception {
        Path spec = dir.resolve(table + ".yaml");
        boolean create = Arrays.asList(extra).contains("create: if-missing");
        Files.writeString(spec, """
                version: 1
                name: cmp-parquet-%s
                connections:
                  lake: { type: duckdb }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: lake, %s }
                    target: { connection: pg, table: public.%s%s }
                """.formatted(table, pg.jdbcUrl(target), pg.user(), table, source, table,
                create ? ", create: if-missing" : "") + String.join("", Arrays.stream(extra)
                .filter(l -> !l.equals("create: if-missing")).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    private static String scalarOfFiles(String query) throws Exception {
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void sql(String database, String... statements) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static String scalar(String database, String query) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

}
