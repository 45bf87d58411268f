package io.sluice.app.lint;

import io.sluice.app.CliRun;

import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sluice lint --connect} through the command line against a real PostgreSQL. */
class ConnectedLintTest {
    private static final String PASSWORD = "L1nt-s3cret-pw";
    private static final String USER = "sluice_lint";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static TestingPostgres pg;
    private static String source;
    private static String target;

    @TempDir
    Path dir;

    @BeforeAll
    static void createDatabases() throws SQLException {
        pg = TestingPostgres.shared();
        source = pg.createDatabase("lint_src");
        target = pg.createDatabase("lint_dst");
        try (Connection c = pg.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, name text, price numeric(10,2), seen timestamptz)");
            s.execute("INSERT INTO items SELECT g, 'item ' || g, g, now() FROM generate_series(1, 100) g");
        }
        try (Connection c = pg.connect(target); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, name text, price numeric(10,2), seen timestamptz)");
            s.execute("CREATE TABLE no_price (id bigint, name text, seen timestamptz)");
            s.execute("CREATE TABLE seen_flag (id bigint, name text, price numeric(10,2), seen boolean)");
            // Roles are per server and the server is shared by the test JVM: create it once.
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + USER + "') THEN "
                    + "CREATE ROLE " + USER + " LOGIN SUPERUSER PASSWORD '" + PASSWORD + "'; END IF; END $$");
        }
    }

    @Test
    void aSpecWhoseTablesAndColumnsMatchPassesAndNothingIsWritten() throws Exception {
        Path spec = spec("items", "items");
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());

        assertEquals(0, lint.exitCode(), lint.all());
        assertEquals("1 file checked: no problems\n", lint.out());
        assertEquals(0, count(target, "items"), "lint writes no rows");
        assertFalse(schemaExists(target, "sluice"), "lint creates no ledger schema");
        assertFalse(lint.all().contains(PASSWORD), "the password never appears");
    }

    @Test
    void missingTablesOnBothSidesAreReportedInOnePassAtTheirTableKeys() throws Exception {
        Path spec = spec("no_such_source", "no_such_target");
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        List<String> lines = lint.out().lines().toList();
        assertTrue(lines.getFirst().startsWith(spec + ":10:7: error["), lint.out());
        assertTrue(lines.getFirst().contains("stream 'items', source (connection 'src')"), lint.out());
        assertTrue(lines.getFirst().contains("no_such_source"), lint.out());
        assertTrue(lint.out().contains(spec + ":13:7: error["), lint.out());
        assertTrue(lint.out().contains("no_such_target"), lint.out());
        assertTrue(lint.out().contains("  fix: "), lint.out());
        assertTrue(lint.out().endsWith("1 file checked: 2 errors, 0 warnings, 0 notes\n"), lint.out());
        assertFalse(lint.all().contains(PASSWORD));
    }

    @Test
    void aSourceColumnWithoutATargetColumnIsReportedAtTheTargetTable() throws Exception {
        Path spec = spec("items", "no_price");
        CliRun lint = CliRun.of("lint", "--connect", "--format", "json", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        JsonNode report = JSON.readTree(lint.out()); // stdout is the report alone, whatever the servers log
        assertEquals(1, report.get("errors").asInt(), lint.out());
        JsonNode d = report.get("diagnostics").get(0);
        assertEquals("MAP001", d.get("code").asString());
        assertEquals(spec.toString(), d.get("file").asString());
        assertEquals(13, d.get("line").asInt());
        assertEquals(7, d.get("column").asInt());
        assertTrue(d.get("message").asString().contains("\"price\""), d.toString());
        assertTrue(d.get("fix").asString().contains("add the column"), d.toString());
    }

    @Test
    void aTypeThatDoesNotConvertIsReportedWithBothTypes() throws Exception {
        Path spec = spec("items", "seen_flag");
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        assertTrue(lint.out().startsWith(spec + ":13:7: error["), lint.out());
        assertTrue(lint.out().contains("timestamp with time zone"), lint.out());
        assertTrue(lint.out().contains("boolean"), lint.out());
    }

    @Test
    void aSourceThatReadsItsOwnTargetIsRefusedAsThePlanRefusesIt() throws Exception {
        // Two connections, one database: the planner's preflight, which lint runs, knows them for one table.
        Path spec = spec("items", "items", pg.jdbcUrl(target));
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());
        CliRun plan = CliRun.of("plan", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        assertTrue(lint.out().startsWith(spec + ":13:7: error[PLAN001]"), lint.out());
        assertTrue(lint.out().contains("reach the same database"), lint.out());
        assertEquals(4, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("PLAN001"), plan.all());
    }

    @Test
    void aStreamThatFollowsChangesIsCheckedAsARunWouldBeforeItCopies() throws Exception {
        // The shared server runs with wal_level = replica: a run would refuse before copying anything.
        Path spec = spec("items", "items");
        Files.writeString(spec, Files.readString(spec).replace("      table: public.items\n    target:",
                "      table: public.items\n      changes: { slot: lint_slot }\n    target:"));
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        assertTrue(lint.out().startsWith(spec + ":10:7: error[PG601]"), lint.out());
        assertTrue(lint.out().contains("wal_level") && lint.out().contains("fix: set wal_level = logical"),
                lint.out());
        assertFalse(lint.all().contains(PASSWORD));
    }

    @Test
    void offlineLintStaysTheDefaultAndNeverConnects() throws Exception {
        // An unreachable server and missing tables: offline lint cannot know, and does not try.
        Path spec = spec("no_such_source", "no_such_target", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/x");
        CliRun lint = CliRun.of("lint", spec.toString());

        assertEquals(0, lint.exitCode(), lint.all());
        assertEquals("1 file checked: no problems\n", lint.out());
    }

    @Test
    void anUnreachableServerIsAnErrorAtEachSideThatUsesItWithoutThePassword() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/x?connectTimeout=5";
        Path spec = spec("items", "items", url);
        CliRun lint = CliRun.of("lint", "--connect", "--format", "sarif", spec.toString());

        assertEquals(3, lint.exitCode(), lint.all());
        JsonNode results = JSON.readTree(lint.out()).get("runs").get(0).get("results");
        assertEquals(1, results.size(), lint.out()); // the source; the target's server is up
        JsonNode region = results.get(0).get("locations").get(0).get("physicalLocation").get("region");
        assertEquals(10, region.get("startLine").asInt(), lint.out());
        assertTrue(results.get(0).get("message").get("text").asString().contains("connection 'src'"), lint.out());
        assertFalse(lint.all().contains(PASSWORD));
    }

    @Test
    void connectingNeedsTheSecretsSoAnUnsetVariableIsAnError() throws Exception {
        Path spec = dir.resolve("unset.yaml");
        Files.writeString(spec, Files.readString(spec("items", "items"))
                .replace("${file:password.txt}", "${SLUICE_LINT_TEST_UNSET_PASSWORD}"));

        CliRun offline = CliRun.of("lint", spec.toString());
        assertEquals(0, offline.exitCode(), offline.all());
        assertTrue(offline.out().contains("note[SPEC019]"), offline.out());

        CliRun connected = CliRun.of("lint", "--connect", spec.toString());
        assertEquals(3, connected.exitCode(), connected.all());
        assertTrue(connected.out().contains("error[SPEC019]"), connected.out());
        assertFalse(connected.out().contains("note[SPEC019]"), "the run-mode error replaces the offline note");
    }

    private Path spec(String sourceTable, String targetTable) throws IOException {
        return spec(sourceTable, targetTable, pg.jdbcUrl(source));
    }

    /** The source's table key is at line 10, column 7; the target's at line 13, column 7. */
    private Path spec(String sourceTable, String targetTable, String sourceUrl) throws IOException {
        Files.writeString(dir.resolve("password.txt"), PASSWORD + "\n");
        String yaml = """
                version: 1
                name: lint-connect
                connections:
                  src: { type: postgres, url: "%s", user: %s, password: "${file:password.txt}" }
                  dst: { type: postgres, url: "%s", user: %s, password: "${file:password.txt}" }
                streams:
                  - name: items
                    source:
                      connection: src
                      table: public.%s
                    target:
                      connection: dst
                      table: public.%s
                    distribution: { method: ctid }
                    degree: 2
                """.formatted(sourceUrl, USER, pg.jdbcUrl(target), USER, sourceTable, targetTable);
        Path spec = dir.resolve("spec-" + sourceTable + "-" + targetTable + ".yaml");
        Files.writeString(spec, yaml);
        return spec;
    }

    /** A loopback port nobody listens on: bound, then released. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static long count(String database, String table) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean schemaExists(String database, String schema) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }
}
