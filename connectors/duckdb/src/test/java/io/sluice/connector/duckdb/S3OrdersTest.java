package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.Source;
import io.sluice.testkit.DuckDbExtensions;
import io.sluice.testkit.TestingPostgres;
import io.sluice.testkit.TestingS3;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The FastTransfer scenario against a real S3 server on loopback: 16 orders files read per file from s3://. */
class S3OrdersTest {
    static final String BUCKET = "sluice-orders";
    static final String QUERY = "SELECT * exclude filename from read_parquet('s3://" + BUCKET
            + "/tpch/orders/*.parquet', filename=true) t";
    static final Distribution PER_FILE = new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("filename"),
            Optional.of("select file from glob('s3://" + BUCKET + "/tpch/orders/*.parquet')"));

    @TempDir
    static Path dir;
    static TestingS3 s3;
    static PgLoad pg;
    static List<String> expected;

    @BeforeAll
    static void setUp() throws Exception {
        DuckDbExtensions.require("httpfs");
        DuckDbFixtures.writeOrders(dir, 0.01, 16);
        expected = DuckDbFixtures.duckChecksum("read_parquet('" + dir + "/*.parquet')");
        s3 = TestingS3.shared();
        s3.createBucket(BUCKET);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".parquet")).toList()) {
                s3.putObject(BUCKET, "tpch/orders/" + file.getFileName(), file);
            }
        }
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_s3"));
        pg.execute(DuckDbFixtures.ORDERS_PG_TABLE);
    }

    @AfterAll
    static void tearDown() {
        s3.close();
    }

    static Connector connector(String keyId, String secret) {
        Map<String, Object> s3Options = new LinkedHashMap<>();
        s3Options.put("endpoint", s3.endpoint());
        s3Options.put("region", s3.region());
        s3Options.put("url-style", "path");
        s3Options.put("use-ssl", false);
        s3Options.put("key-id", keyId);
        s3Options.put("secret", secret);
        return DuckDbFixtures.connector(dir, Map.of(
                "extension-directory", DuckDbExtensions.directory().toString(),
                "s3", Options.of(DuckDbOptions.S3_SCHEMA, s3Options)));
    }

    @Test
    void ordersRoundTripFromS3PerFile() throws Exception {
        try (Connector connector = connector(s3.accessKey(), s3.secretKey())) {
            Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", QUERY)));
            assertEquals(16, source.plan(new io.sluice.spi.read.PlanRequest(PER_FILE, 4, 10_000)).size());
            long rows = pg.load(source, "orders", PER_FILE, 4);
            assertEquals(Long.parseLong(expected.get(0)), rows);
            assertEquals(expected, pg.query(DuckDbFixtures.ORDERS_CHECKSUM + "orders").get(0));
            for (String notice : connector.notices()) {
                assertFalse(notice.contains(s3.secretKey()), notice);
            }
        }
    }

    @Test
    void missingBucketIsPreflight() throws Exception {
        try (Connector connector = connector(s3.accessKey(), s3.secretKey())) {
            Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                    "SELECT * FROM read_parquet('s3://no-such-bucket/orders/*.parquet')")));
            ConnectorException e = assertThrows(ConnectorException.class, source::columns);
            assertEquals(ErrorKind.PREFLIGHT, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("no-such-bucket"), e.getMessage());
        }
    }

    @Test
    void wrongCredentialsArePreflightAndNeverShown() throws Exception {
        String wrong = "wrong-secret-" + System.nanoTime();
        try (Connector connector = connector(s3.accessKey(), wrong)) {
            Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", QUERY)));
            ConnectorException e = assertThrows(ConnectorException.class, source::columns);
            assertEquals(ErrorKind.PREFLIGHT, e.kind(), e.getMessage());
            assertFalse(e.getMessage().contains(wrong), e.getMessage());
            assertTrue(e.getMessage().contains("access denied") || e.getMessage().contains("403"), e.getMessage());
        }
    }
}
