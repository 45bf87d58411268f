package io.sluice.app;

import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failure classes through the command line, each with its exit code, a message that says where and what, and no
 * secret in any output: an unreachable host, a wrong password, and a server refusing rows mid-copy (a CHECK
 * constraint standing in for a full disk or quota).
 */
class FailureClassesTest {
    private static final String PASSWORD = "right-Pa55word-42";
    private static TestingPostgres pg;
    private static String source;
    private static String target;

    @TempDir
    Path dir;

    @BeforeAll
    static void prepare() throws SQLException {
        pg = TestingPostgres.shared();
        source = pg.createDatabase("fail_src");
        target = pg.createDatabase("fail_dst");
        sql(source, "CREATE TABLE items (id bigint, qty int)",
                "INSERT INTO items SELECT g, CASE WHEN g = 7777 THEN -1 ELSE g % 100 END FROM generate_series(1, 10000) g");
        sql(target, "CREATE TABLE items (id bigint, qty int CHECK (qty >= 0))");
        // A role that must authenticate with a password over TCP, whatever the server's default rule is.
        sql("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sluice_pw') THEN "
                        + "CREATE ROLE sluice_pw LOGIN SUPERUSER PASSWORD '" + PASSWORD + "'; END IF; END $$");
        String hba = scalar("postgres", "SHOW hba_file");
        sql("postgres", "COPY (SELECT 1) TO PROGRAM 'grep -q \"^host all sluice_pw\" " + hba + " || sed -i "
                + "\"1i host all sluice_pw all scram-sha-256\" " + hba + "'", "SELECT pg_reload_conf()");
    }

    @Test
    void anUnreachableHostIsAPreflightFailure() throws Exception {
        Path spec = spec("jdbc:postgresql://127.0.0.1:1/nowhere", "sluice_pw", "${file:pw.txt}", "items");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.err().contains("stream 'items'"), run.err());
        assertTrue(run.err().toLowerCase().contains("connect"), run.err());
        assertFalse(run.all().contains(PASSWORD));
    }

    @Test
    void aWrongPasswordIsAPreflightFailureThatNeverPrintsThePassword() throws Exception {
        Files.writeString(dir.resolve("wrong.txt"), "wrong-" + PASSWORD);
        Path spec = spec(pg.jdbcUrl(target), "sluice_pw", "${file:wrong.txt}", "items");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.err().contains("password authentication failed") || run.err().contains("28P01"), run.err());
        assertFalse(run.all().contains(PASSWORD), run.all());

        Path right = spec(pg.jdbcUrl(target), "sluice_pw", "${file:pw.txt}", "items");
        assertEquals(0, CliRun.of("plan", right.toString()).exitCode(), "the right password gets in");
    }

    @Test
    void aServerRefusingRowsMidCopyFailsTheRunNamingTheConstraintAndPartition() throws Exception {
        Path spec = spec(pg.jdbcUrl(target), "sluice_pw", "${file:pw.txt}", "items");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(1, run.exitCode(), run.all());
        assertTrue(run.err().contains("items_qty_check"), run.err());
        assertTrue(run.err().contains("partition"), run.err());
        assertEquals(0, Long.parseLong(scalar(target, "SELECT count(*) FROM items WHERE id = 7777")),
                "the refused row's partition was rolled back");
        assertFalse(run.all().contains(PASSWORD));
    }

    private Path spec(String url, String user, String password, String table) throws Exception {
        Files.writeString(dir.resolve("pw.txt"), PASSWORD);
        Path spec = dir.resolve("failure.yaml");
        Files.writeString(spec, """
                version: 1
                name: failure-classes
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: %s, password: "%s" }
                streams:
                  - name: items
                    source: { connection: src, table: items }
                    target: { connection: dst, table: %s }
                    distribution: { method: range, key: id }
                    degree: 2
                    batch-size: 2500
                    load-mode: truncate
                """.formatted(pg.jdbcUrl(source), pg.user(), url, user, password, table));
        return spec;
    }

    private static void sql(String database, String... statements) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static String scalar(String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
