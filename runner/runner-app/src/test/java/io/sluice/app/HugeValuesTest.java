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
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Values larger than the JVM's heap: PostgreSQL to PostgreSQL streams a row whatever its size; where a row must be
 * held whole (rejects: sends a refused row's segment again) a heap too small for it is a clear error naming the row's
 * size, the heap and the setting, with nothing committed, and the resume with more heap finishes the copy.
 */
class HugeValuesTest {
    private static final String HEAP = "-Xmx64m";
    private static TestingPostgres pg;
    private static String source;
    private static String sourceRows;

    @TempDir
    Path dir;

    @BeforeAll
    static void twoRowsOf96Mb() throws SQLException {
        pg = TestingPostgres.shared();
        source = pg.createDatabase("huge_src");
        try (Connection c = pg.connect(source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE big (id int PRIMARY KEY, body text NOT NULL)");
            s.execute("INSERT INTO big SELECT g, repeat(md5(g::text), 3 << 20) FROM generate_series(1, 2) g");
        }
        sourceRows = rows(source);
    }

    @Test
    void rowsLargerThanTheHeapStreamThroughIt() throws Exception {
        String target = pg.createDatabase("huge_dst");
        Run run = sluice(List.of(HEAP), "run", spec(target, "").toString());
        assertEquals(0, run.exitCode(), run.output());
        assertEquals(sourceRows, rows(target), "both 96 MB rows through a 64 MB heap at degree 2");
    }

    @Test
    void aLongRowTheTargetRefusesFailsItsPartitionAndTheNextRunLoadsIt() throws Exception {
        String target = pg.createDatabase("huge_narrow");
        try (Connection c = pg.connect(target); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE big (id int PRIMARY KEY, body varchar(1000) NOT NULL)");
        }
        // The server refuses a row at its end: the reader is then mid-row, its protocol stream mid-message.
        Run refused = sluice(List.of(HEAP), "run", spec(target, "").toString());
        assertEquals(1, refused.exitCode(), refused.output());
        assertTrue(refused.output().contains("value too long for type character varying(1000)"), refused.output());
        assertEquals("0", text(target, "SELECT count(*) FROM big"));
        try (Connection c = pg.connect(target); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE big ALTER COLUMN body TYPE text");
        }
        Run fresh = sluice(List.of(HEAP), "run", spec(target, "").toString());
        assertEquals(0, fresh.exitCode(), fresh.output());
        assertEquals(sourceRows, rows(target));
    }

    @Test
    void aRowRejectsMustHoldWholeFailsNamingItsSizeAndTheResumeWithMoreHeapFinishes() throws Exception {
        String target = pg.createDatabase("huge_rej");
        Path spec = spec(target, "    rejects: { table: public.big_rejects }\n");
        Run small = sluice(List.of(HEAP), "run", spec.toString(), "--run-id", "small-heap");
        assertEquals(1, small.exitCode(), small.output());
        assertTrue(small.output().contains("error[PG244]") && small.output().contains("a row of 97 MB does not fit")
                && small.output().contains("(at most 64 MB)"), small.output());
        assertTrue(small.output().contains("load this table without rejects:")
                && small.output().contains("SLUICE_JAVA_OPTS='-XX:+UseSerialGC -Xmx"), small.output());
        assertFalse(small.output().contains("RUN030") || small.output().contains("\tat "), small.output());
        assertEquals("0", text(target, "SELECT count(*) FROM big"), "nothing of either row committed");

        Run resumed = sluice(List.of(), "run", spec.toString(), "--resume", "small-heap");
        assertEquals(0, resumed.exitCode(), resumed.output());
        assertEquals(sourceRows, rows(target));
        assertEquals("0", text(target, "SELECT count(*) FROM big_rejects"));
    }

    private Path spec(String target, String streamLines) throws Exception {
        Path spec = dir.resolve(target + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: huge
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: big
                    source: { connection: src, table: public.big }
                    target: { connection: dst, table: public.big, create: if-missing }
                    distribution: { method: modulo, key: id }
                    degree: 2
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user()) + streamLines);
        return spec;
    }

    private record Run(int exitCode, String output) {
    }

    private Run sluice(List<String> jvm, String... args) throws Exception {
        Path log = Files.createTempFile(dir, "sluice", ".log");
        Process child = new ProcessBuilder(SluiceProcess.command(jvm, List.of(args))).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            assertTrue(child.waitFor(300, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
        } finally {
            child.destroyForcibly(); // a hung run must not outlive its test, busy
        }
        return new Run(child.exitValue(), Files.readString(log));
    }

    /** Each row's id, length and md5: the values themselves would not fit in an assertion message. */
    private static String rows(String database) throws SQLException {
        return text(database, "SELECT string_agg(id || ':' || length(body) || ':' || md5(body), ',' ORDER BY id) "
                + "FROM big");
    }

    private static String text(String database, String sql) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }
}
