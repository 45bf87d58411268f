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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pagila's film shape on PostgreSQL 18 through the command line: a table with generated columns (virtual and stored)
 * copies into an identical table without a word from the user, and {@code sluice plan} says what it left out.
 */
class GeneratedColumnsPipelineTest {
    private static final String FILM = "CREATE TABLE film (film_id int, title text, length int, "
            + "length_hours numeric GENERATED ALWAYS AS (length / 60.0) VIRTUAL, "
            + "length_days numeric GENERATED ALWAYS AS (length / 1440.0) STORED)";
    private static TestingPostgres pg;
    private static String source;
    private static String target;

    @TempDir
    Path dir;

    @BeforeAll
    static void createDatabases() throws SQLException {
        pg = TestingPostgres.shared();
        source = pg.createDatabase("gen_src");
        target = pg.createDatabase("gen_dst");
        sql(source, FILM, "CREATE TABLE film_plain (film_id int, title text, length int, length_hours numeric)",
                "INSERT INTO film (film_id, title, length) SELECT g, 'film ' || g, 46 + g % 140 "
                        + "FROM generate_series(1, 1000) AS g",
                "INSERT INTO film_plain SELECT film_id, title, length, 1 FROM film");
        sql(target, FILM, "CREATE TABLE film_flat (film_id int, title text, length int, length_hours numeric, "
                + "length_days numeric)");
    }

    @Test
    void identicalTablesCopyAndPlanSaysWhichGeneratedColumnsAreLeftOut() throws Exception {
        Path spec = spec("film", "film");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("\"length_hours\" GENERATED VIRTUAL  ->  \"length_hours\" GENERATED VIRTUAL  "
                + "(left out: generated on both sides, the target computes it)"), plan.out());
        assertTrue(plan.out().contains("\"length_days\" GENERATED STORED  ->  \"length_days\" GENERATED STORED"),
                plan.out());

        CliRun json = CliRun.of("plan", spec.toString(), "--format", "json");
        JsonNode leftOut = JsonMapper.builder().build().readTree(json.out()).get("streams").get(0)
                .get("left-out-columns");
        assertEquals(2, leftOut.size(), json.out());
        assertEquals("VIRTUAL", leftOut.get(0).get("target-generated").asString());

        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(query(source, "SELECT md5(string_agg(f::text, '|' ORDER BY film_id)) FROM film f"),
                query(target, "SELECT md5(string_agg(f::text, '|' ORDER BY film_id)) FROM film f"),
                "every column, the generated ones computed by the target");
    }

    @Test
    void generatedSourceColumnsMaterialiseInPlainTargetColumns() throws Exception {
        CliRun run = CliRun.of("run", spec("film", "film_flat").toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals("1000", query(target, "SELECT count(*) FROM film_flat WHERE length_hours = length / 60.0 "
                + "AND length_days = length / 1440.0"));
    }

    @Test
    void aPlainSourceColumnIntoAGeneratedTargetColumnIsRefusedNamingItsKind() throws Exception {
        CliRun run = CliRun.of("run", spec("film_plain", "film").toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.err().contains("MAP004"), run.err());
        assertTrue(run.err().contains("target column \"length_hours\", which is GENERATED ALWAYS AS (...) VIRTUAL"),
                run.err());
    }

    private Path spec(String sourceTable, String targetTable) throws Exception {
        String yaml = """
                version: 1
                name: generated
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: film
                    source: { connection: src, table: public.%s }
                    target: { connection: dst, table: public.%s }
                    distribution: { method: range, key: film_id }
                    degree: 2
                    load-mode: truncate
                    verify: checksum
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user(), sourceTable,
                targetTable);
        Path spec = dir.resolve(sourceTable + "-" + targetTable + ".yaml");
        Files.writeString(spec, yaml);
        return spec;
    }

    private static void sql(String database, String... statements) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static String query(String database, String sql) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
