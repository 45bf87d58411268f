package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.Redactor;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each failure a user can cause is a ConnectorException of the right kind whose message names the cause. */
class FailuresTest {
    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;

    @BeforeAll
    static void setUp() throws Exception {
        try (Connection c = DuckDbFixtures.duckdb(); Statement s = c.createStatement()) {
            s.execute("COPY (SELECT range AS id, 'value ' || range AS s, CAST(range AS DOUBLE) * 1.5 AS d, "
                    + "CAST(range * 1000 AS DECIMAL(12,2)) AS m FROM range(200000)) TO '" + dir.resolve("good.parquet")
                    + "' (FORMAT parquet)");
            s.execute("COPY (SELECT 'abcdefghijk' AS s) TO '" + dir.resolve("long.parquet") + "' (FORMAT parquet)");
        }
        // a corrupt file: footer intact (the schema reads), pages overwritten
        byte[] bytes = Files.readAllBytes(dir.resolve("good.parquet"));
        for (int i = 1000; i < bytes.length / 2; i++) {
            bytes[i] = 0x55;
        }
        Files.createDirectories(dir.resolve("corrupt"));
        Files.write(dir.resolve("corrupt/bad.parquet"), bytes);
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_failures"));
        pg.execute("CREATE TABLE t (id bigint, s text, d double precision, m numeric(12,2))");
        pg.execute("CREATE TABLE short_text (s varchar(5))");
        pg.execute("CREATE TABLE narrow (m numeric(5,2))");
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @Test
    void globWithoutMatch() throws Exception {
        Source files = connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("files", "nothing/*.parquet")));
        ConnectorException e = assertThrows(ConnectorException.class, files::columns);
        assertEquals(ErrorKind.PREFLIGHT, e.kind());
        assertTrue(e.getMessage().contains("no file matches"), e.getMessage());
        assertTrue(e.getMessage().contains("nothing/*.parquet"), e.getMessage());

        ConnectorException plan = assertThrows(ConnectorException.class, () -> files.plan(
                new PlanRequest(Distribution.none(), 1, 1000)));
        assertEquals(ErrorKind.PREFLIGHT, plan.kind());
        assertTrue(plan.getMessage().startsWith("no file matches"), plan.getMessage());

        Source query = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT * FROM read_parquet('good.parquet', filename=true)")));
        ConnectorException values = assertThrows(ConnectorException.class, () -> query.plan(new PlanRequest(
                new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("filename"),
                        Optional.of("select file from glob('nothing/*.parquet')")), 1, 1000)));
        assertEquals(ErrorKind.PREFLIGHT, values.kind());
    }

    @Test
    void corruptParquetIsADataErrorNamingTheFile() throws Exception {
        Source source = connector.sources().orElseThrow()
                .open(DuckDbFixtures.source(Map.of("files", "corrupt/*.parquet")));
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> pg.load(source, "t", Distribution.none(), 1));
        assertEquals(ErrorKind.DATA, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("bad.parquet"), e.getMessage());
    }

    @Test
    void missingExtensionNamesFileVersionAndLayout(@TempDir Path empty) throws Exception {
        try (Connector offline = DuckDbFixtures.connector(dir, Map.of("extension-directory", empty.toString()))) {
            Source source = offline.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                    "SELECT * FROM read_parquet('s3://bucket/orders/*.parquet')")));
            ConnectorException e = assertThrows(ConnectorException.class, source::columns);
            assertEquals(ErrorKind.PREFLIGHT, e.kind());
            assertTrue(e.getMessage().contains("'httpfs'"), e.getMessage());
            assertTrue(e.getMessage().contains("v1.5.5"), e.getMessage());
            assertTrue(e.getMessage().contains(empty.resolve("v1.5.5/linux_amd64/httpfs.duckdb_extension").toString()),
                    e.getMessage());
            assertTrue(e.fix().orElseThrow().contains("duckdb-extension-httpfs==1.5.5"), e.fix().orElseThrow());
        }
    }

    @Test
    void lossyConversionsAreRefusedAtPlanTime() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT 1.5::DOUBLE AS d, 1::HUGEINT AS h, 'x' AS v, 1.25::DECIMAL(10,2) AS m")));
        List<Column> columns = source.columns();
        assertRefused(source, columns.get(0), "integer", 23, "DOUBLE");
        assertRefused(source, columns.get(1), "bigint", 20, "HUGEINT");
        assertRefused(source, columns.get(2), "integer", 23, "VARCHAR");
        assertRefused(source, columns.get(3), "numeric(10,1)", 1700, "round away");
        assertRefused(source, columns.get(0), "real", 700, "DOUBLE");
    }

    private static void assertRefused(Source source, Column column, String pgType, int oid, String mention) {
        Column target = new Column("target_" + column.name(), pgType, oid, true, Column.Generation.NONE);
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> source.project(List.of(new ColumnPair(column, target))));
        assertEquals(ErrorKind.INVALID_SPEC, e.kind());
        assertTrue(e.getMessage().contains("\"" + column.name() + "\""), e.getMessage());
        assertTrue(e.getMessage().contains(pgType), e.getMessage());
        assertTrue(e.getMessage().contains(mention), e.getMessage());
        assertTrue(e.fix().isPresent() && !e.fix().get().isBlank());
    }

    @Test
    void tooLongTextIsADataErrorNamingColumnFileAndValue() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("files", "long.parquet")));
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> pg.load(source, "short_text", Distribution.none(), 1));
        assertEquals(ErrorKind.DATA, e.kind());
        assertTrue(e.getMessage().contains("character varying(5)"), e.getMessage());
        assertTrue(e.getMessage().contains("column \"s\""), e.getMessage());
        assertTrue(e.getMessage().contains("long.parquet"), e.getMessage());
        assertTrue(e.getMessage().contains("'abcdefghijk'"), e.getMessage());
    }

    @Test
    void numericOverflowIsADataError() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT CAST(m AS DECIMAL(10,2)) AS m FROM read_parquet('good.parquet') WHERE id = 500")));
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> pg.load(source, "narrow", Distribution.none(), 1));
        assertEquals(ErrorKind.DATA, e.kind());
        assertTrue(e.getMessage().contains("500000.00"), e.getMessage());
    }

    @Test
    void badQueryIsInvalidSpec() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", "SELEC 1")));
        ConnectorException e = assertThrows(ConnectorException.class, source::columns);
        assertEquals(ErrorKind.INVALID_SPEC, e.kind());
    }

    @Test
    void secretsNeverReachMessages() {
        S3Settings s3 = new S3Settings(Optional.of("127.0.0.1:1"), Optional.of("us-east-1"), Optional.of("path"),
                false, Optional.of("AKIDSECRET"), Optional.of("very'secret"), Optional.of("tok3n"));
        assertFalse(s3.toString().contains("AKIDSECRET") || s3.toString().contains("very") || s3.toString()
                .contains("tok3n"), s3.toString());
        String sql = s3.createSecretSql("x");
        assertTrue(sql.contains("'very''secret'"), "quotes are escaped");
        Redactor redactor = new Redactor(s3.secretValues());
        ConnectorException e = DuckDbErrors.translate(new java.sql.SQLException("Parser Error: near very'secret\n"
                + "LINE 1: " + sql), DuckDbErrors.Phase.PREFLIGHT, "x", redactor);
        assertFalse(e.getMessage().contains("very'secret") || e.getMessage().contains("AKIDSECRET"), e.getMessage());
        assertEquals(null, e.getCause());
    }

    @Test
    void networkFaultsAreUnreachableAndRetriedWhereverDuckDbWrapsThem() {
        for (String message : List.of("IO Error: Could not connect to server: 127.0.0.1:9",
                "IO Error: Transferred a partial file",
                "Invalid Input Error: HTTP GET error on 's3://b/x.parquet' (HTTP 503 Service Unavailable)",
                "IO Error: SSL connect error", "HTTP Error: HTTP GET error (HTTP 500 Internal Server Error)",
                "Invalid Input Error: Failed to read: Connection reset by peer")) {
            ConnectorException read = DuckDbErrors.translate(new java.sql.SQLException(message),
                    DuckDbErrors.Phase.READ, "file x", Redactor.none());
            assertEquals(DuckDbCode.DUCK107.name(), read.code(), message);
            assertEquals(ErrorKind.TRANSIENT, read.kind(), "retried: " + message);
            ConnectorException plan = DuckDbErrors.translate(new java.sql.SQLException(message),
                    DuckDbErrors.Phase.PREFLIGHT, "file x", Redactor.none());
            assertEquals(DuckDbCode.DUCK107.name(), plan.code(), "not a corrupt file: " + message);
            assertTrue(plan.fix().orElse("").contains("use-ssl"), plan.fix().orElse(""));
        }
        ConnectorException corrupt = DuckDbErrors.translate(new java.sql.SQLException("Invalid Input Error: No magic "
                + "bytes found at end of file 'x.parquet'"), DuckDbErrors.Phase.READ, "file x", Redactor.none());
        assertEquals(DuckDbCode.DUCK300.name(), corrupt.code());
        assertTrue(corrupt.fix().orElse("").contains("--resume"), corrupt.fix().orElse(""));
    }

    @Test
    void rowsAreCountedExactlyWithEveryDistribution() throws Exception {
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT * FROM read_parquet('good.parquet') UNION ALL SELECT NULL, 'null key', 0, 0")));
        for (Distribution distribution : List.of(Distribution.none(),
                new Distribution(DistributionMethod.RANGE, Optional.of("id"), Optional.empty()),
                new Distribution(DistributionMethod.RANGE, Optional.of("d"), Optional.empty()),
                new Distribution(DistributionMethod.MODULO, Optional.of("id"), Optional.empty()),
                new Distribution(DistributionMethod.NTILE, Optional.of("s"), Optional.empty()),
                new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("id % 3"),
                        Optional.of("SELECT DISTINCT id % 3 FROM read_parquet('good.parquet') UNION ALL SELECT NULL")))) {
            pg.execute("TRUNCATE t");
            assertEquals(200_001, pg.load(source, "t", distribution, 3), distribution.toString());
            assertEquals(List.of(List.of("200001", "200001", "19999900000")),
                    pg.query("SELECT count(*), count(DISTINCT s), sum(id) FROM t"), distribution.toString());
        }
    }
}
