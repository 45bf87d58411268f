package io.sluice.app;

import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole product through its command line: spec file in, rows in a real PostgreSQL out. */
class PostgresPipelineTest {
    private static final String PASSWORD = "s3cr3t-Pa55word";
    private static TestingPostgres pg;
    private static String source;
    private static String target;

    @TempDir
    Path dir;

    @BeforeAll
    static void createDatabases() throws SQLException {
        pg = TestingPostgres.shared();
        source = pg.createDatabase("cli_src");
        target = pg.createDatabase("cli_dst");
        try (Connection c = pg.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, name text, price numeric(10,2), seen timestamptz)");
            s.execute("INSERT INTO items SELECT g, 'item ' || g, g / 7.0, now() - g * interval '1 minute' "
                    + "FROM generate_series(1, 50000) g");
            s.execute("INSERT INTO items VALUES (NULL, NULL, NULL, NULL)");
            s.execute("ANALYZE items");
        }
        try (Connection c = pg.connect(target); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, name text, price numeric(10,2), seen timestamptz)");
            s.execute("CREATE TABLE narrow (id bigint, name varchar(8), price numeric(10,2), seen timestamptz)");
            s.execute("CREATE ROLE sluice_cli LOGIN PASSWORD '" + PASSWORD + "' SUPERUSER");
        }
    }

    @Test
    void runCopiesATableWithCtidPartitionsAndPrintsASummary() throws Exception {
        Path spec = spec("items", "ctid", 4, "items", "truncate");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "test-run-1");

        assertEquals(0, run.exitCode(), run.all());
        assertEquals(50001, count(target, "items"));
        assertEquals(fingerprint(source, "items"), fingerprint(target, "items"));
        assertTrue(run.err().contains("stream items: done, 50,001 rows"), run.err());
        assertTrue(run.err().contains("rows read = rows written"), run.err());
        assertTrue(run.err().contains("run test-run-1"), run.err());
        assertFalse(run.all().contains(PASSWORD), "the password never appears");

        CliRun again = CliRun.of("run", spec.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertEquals(50001, count(target, "items"), "truncate mode: a second run does not duplicate");
    }

    @Test
    void planPrintsPartitionsAndStatementsAsJsonAndWritesNothing() throws Exception {
        Path spec = spec("items", "range", 3, "items", "append");
        long before = count(target, "items");
        CliRun plan = CliRun.of("plan", spec.toString(), "--format", "json");

        assertEquals(0, plan.exitCode(), plan.all());
        JsonNode json = JsonMapper.builder().build().readTree(plan.out());
        JsonNode stream = json.get("streams").get(0);
        assertEquals("range", stream.get("method").asString());
        assertTrue(stream.get("partitions").size() >= 3, plan.out());
        assertTrue(stream.get("partitions").get(0).get("source-statement").asString().startsWith("COPY ("),
                plan.out());
        assertTrue(stream.get("target-statement").asString().contains("FROM STDIN"), plan.out());
        // which path reads the rows: PgJDBC's protocol stream on the PgJDBC it was tested with
        JsonNode notes = stream.get("notes");
        assertTrue(notes.get(notes.size() - 1).asString().startsWith("fast path pgjdbc-copy-frames: on, "), plan.out());
        CliRun text = CliRun.of("plan", spec.toString());
        assertTrue(text.out().contains("  note:        fast path pgjdbc-copy-frames: on, "), text.out());
        assertEquals(before, count(target, "items"));
        assertFalse(plan.all().contains(PASSWORD));
    }

    @Test
    void anInvalidSpecExits3WithAPositionedError() throws Exception {
        Path spec = dir.resolve("bad.yaml");
        Files.writeString(spec, Files.readString(spec("items", "none", 1, "items", "append"))
                .replace("degree: 1", "degre: 1"));
        CliRun run = CliRun.of("run", spec.toString());

        assertEquals(3, run.exitCode(), run.all());
        assertTrue(run.err().contains("unknown key 'degre'"), run.err());
    }

    @Test
    void aMissingTargetTableIsAPreflightFailureThatWritesNothing() throws Exception {
        Path spec = spec("items", "ctid", 2, "no_such_table", "truncate");
        CliRun run = CliRun.of("run", spec.toString());

        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.err().contains("no_such_table"), run.err());
        assertFalse(run.all().contains(PASSWORD));
    }

    @Test
    void aValueTooLongFailsTheRunNamingTheColumnAndRollsBack() throws Exception {
        Path spec = spec("items", "ctid", 2, "narrow", "append");
        CliRun run = CliRun.of("run", spec.toString());

        assertEquals(1, run.exitCode(), run.all());
        assertTrue(run.err().contains("name"), run.err());
        assertTrue(run.err().contains("stream 'items'"), run.err());
        assertTrue(run.err().toLowerCase().contains("too long"), run.err());
        assertEquals(0, count(target, "narrow"), "nothing half-written: every partition was rolled back");
    }

    private Path spec(String stream, String method, int degree, String targetTable, String loadMode)
            throws Exception {
        Path passwordFile = dir.resolve("password.txt");
        Files.writeString(passwordFile, PASSWORD + "\n");
        String key = method.equals("range") || method.equals("ntile") || method.equals("modulo")
                ? ", key: id" : "";
        String yaml = """
                version: 1
                name: cli-test
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: sluice_cli, password: "${file:password.txt}" }
                streams:
                  - name: %s
                    source: { connection: src, table: public.items }
                    target: { connection: dst, table: %s }
                    distribution: { method: %s%s }
                    degree: %d
                    batch-size: 10000
                    load-mode: %s
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), stream, targetTable, method, key,
                degree, loadMode);
        Path spec = dir.resolve(stream + "-" + method + ".yaml");
        Files.writeString(spec, yaml);
        return spec;
    }

    private static long count(String database, String table) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** An order-independent digest of the whole table, compared across the two databases. */
    private static String fingerprint(String database, String table) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) || ':' || md5(string_agg(t::text, '|' ORDER BY t::text)) "
                     + "FROM " + table + " t")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
