package io.sluice.bench;

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
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The plain Java and libpq pipes copy every row, rows larger than their 64 KiB buffer included. */
class PipeScenariosTest {
    private static final String TABLE = TpchData.SCHEMA + ".lineitem";
    private static TestingPostgres server;
    private static PgEndpoint source;
    private static PgEndpoint target;

    @BeforeAll
    static void start() throws SQLException {
        server = TestingPostgres.shared();
        source = endpoint(server.createDatabase("pipe_src"));
        target = endpoint(server.createDatabase("pipe_dst"));
        for (PgEndpoint e : List.of(source, target)) {
            try (Connection c = e.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + TpchData.SCHEMA);
                s.execute("CREATE TABLE " + TABLE + " (id int, note text, amount numeric)");
            }
        }
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + TABLE + " SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE md5(g::text) END, "
                    + "g * 1.5 FROM generate_series(1, 20000) g");
            s.execute("INSERT INTO " + TABLE + " VALUES (-1, repeat('x', 200000), NULL)"); // > 64 KiB
        }
    }

    @AfterAll
    static void clear() {
        server = null;
    }

    @Test
    void javaPipeCopiesEveryRow(@TempDir Path dir) throws Exception {
        JavaPipeScenario pipe = new JavaPipeScenario(info("java-pipe"), Path.of(System.getProperty("java.home")),
                List.of("-XX:+UseSerialGC"), source, target, TABLE, dir);
        assertEquals(Optional.empty(), pipe.skipReason());
        truncateTarget();
        pipe.run(1);
        assertEquals(rows(source), rows(target));
    }

    @Test
    void libpqPipeCopiesEveryRowWhereItCanBeBuilt(@TempDir Path dir) throws Exception {
        Optional<Path> gcc = ClientTool.onPath("gcc");
        LibpqPipeScenario pipe = new LibpqPipeScenario(info("libpq-pipe"), gcc, source, target, TABLE, dir);
        if (gcc.isEmpty() || !Files.isReadable(Path.of("/usr/include/postgresql/libpq-fe.h"))) {
            // The report then shows why the row is missing instead of failing the whole benchmark.
            assertTrue(pipe.skipReason().isPresent());
            return;
        }
        assertEquals(Optional.empty(), pipe.skipReason());
        truncateTarget();
        pipe.run(1);
        assertEquals(rows(source), rows(target));
    }

    @Test
    void conninfoQuotesValues() {
        PgEndpoint e = new PgEndpoint("db.example", 6432, "my db", "o'neil", "p\\w d");
        assertEquals("host='db.example' port=6432 dbname='my db' user='o\\'neil' password='p\\\\w d'",
                LibpqPipeScenario.conninfo(e));
        assertEquals("host='h' port=5432 dbname='d' user='u'",
                LibpqPipeScenario.conninfo(new PgEndpoint("h", 5432, "d", "u", "")));
    }

    private static ScenarioInfo info(String slug) {
        return new ScenarioInfo(Section.LINEITEM_LOGGED, BenchTarget.LINEITEM_LOGGED, ScenarioRole.BASELINE, slug,
                slug, 0);
    }

    private static PgEndpoint endpoint(String database) {
        return new PgEndpoint(server.host(), server.port(), database, server.user(), server.password());
    }

    private static void truncateTarget() throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE " + TABLE);
        }
    }

    /** Row count and an order-independent digest of the rows' text. */
    private static String rows(PgEndpoint e) throws SQLException {
        try (Connection c = e.connect(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' "
                     + "ORDER BY t::text)), '') FROM " + TABLE + " t")) {
            r.next();
            return r.getString(1);
        }
    }
}
