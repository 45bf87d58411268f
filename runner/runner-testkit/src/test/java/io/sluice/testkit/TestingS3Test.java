package io.sluice.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestingS3Test {
    @Test
    void signedHttpRequestsReachTheServer() {
        try (TestingS3 s3 = TestingS3.builder().credentials("kit-key", "kit-secret").start();
             S3Client client = client(s3, s3.accessKey(), s3.secretKey())) {
            assertTrue(s3.endpoint().matches("127\\.0\\.0\\.1:\\d+"), s3.endpoint());
            s3.createBucket("http-bkt");
            s3.putObject("http-bkt", "fixture/a.txt", "from the fixture".getBytes(StandardCharsets.UTF_8));
            client.putObject(b -> b.bucket("http-bkt").key("client/b.txt"), RequestBody.fromString("over http"));

            List<String> keys = client.listObjectsV2(b -> b.bucket("http-bkt")).contents().stream()
                    .map(S3Object::key).toList();
            assertEquals(List.of("client/b.txt", "fixture/a.txt"), keys);
            assertEquals("from the fixture", client.getObjectAsBytes(b -> b.bucket("http-bkt").key("fixture/a.txt"))
                    .asUtf8String());
            assertArrayEquals("over http".getBytes(StandardCharsets.UTF_8), s3.getObject("http-bkt", "client/b.txt"));
            assertEquals(List.of("client/b.txt"), s3.listObjects("http-bkt", "client/"));

            try (S3Client wrong = client(s3, "kit-key", "not-the-secret")) {
                S3Exception e = assertThrows(S3Exception.class, () -> wrong.listObjectsV2(b -> b.bucket("http-bkt")));
                assertEquals(403, e.statusCode());
            }
        }
    }

    @Test
    void filesystemStoreKeepsObjectsOnDisk(@TempDir Path dir) throws Exception {
        Path local = dir.resolve("local.bin");
        Files.write(local, new byte[] {1, 2, 3});
        try (TestingS3 s3 = TestingS3.builder().filesystem(dir.resolve("store")).start()) {
            s3.createBucket("disk-bkt");
            s3.putObject("disk-bkt", "k/local.bin", local);
            assertArrayEquals(new byte[] {1, 2, 3}, s3.getObject("disk-bkt", "k/local.bin"));
        }
        assertTrue(Files.isRegularFile(dir.resolve("store/disk-bkt/k/local.bin")));
    }

    /** The way the duckdb connector will use it: httpfs writes Parquet to the server and reads it back. */
    @Test
    void duckDbWritesAndReadsParquetOverS3(@TempDir Path dir) throws Exception {
        DuckDbExtensions.require("httpfs");
        TestingS3 s3 = TestingS3.shared();
        s3.createBucket("duck-bkt");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", DuckDbExtensions.connectionProperties())) {
            execute(c, s3.duckDbSecretSql("kit_s3"));
            execute(c, "COPY (SELECT i AS id, i % 3 AS part, 'v' || i AS label FROM range(3000) t(i))"
                    + " TO 's3://duck-bkt/data' (FORMAT parquet, PARTITION_BY (part), OVERWRITE_OR_IGNORE)");
            // a local file uploaded by the fixture sits beside what DuckDB wrote
            Path local = dir.resolve("extra.parquet");
            execute(c, "COPY (SELECT 5000 + i AS id, 9 AS part, 'x' AS label FROM range(10) t(i)) TO '"
                    + local + "' (FORMAT parquet)");
            s3.putObject("duck-bkt", "data/part=9/extra.parquet", local);

            assertEquals(4, query(c, "SELECT count(*) FROM glob('s3://duck-bkt/data/*/*.parquet')"));
            assertEquals(3010, query(c, "SELECT count(*) FROM read_parquet('s3://duck-bkt/data/*/*.parquet',"
                    + " hive_partitioning = true)"));
            assertEquals(3000L * 2999 / 2 + 10 * 5000 + 45,
                    query(c, "SELECT sum(id) FROM read_parquet('s3://duck-bkt/data/**/*.parquet')"));
        }
        assertEquals(4, s3.listObjects("duck-bkt", "data/").size(), s3.listObjects("duck-bkt", "").toString());
    }

    private static S3Client client(TestingS3 s3, String key, String secret) {
        return S3Client.builder()
                .endpointOverride(URI.create(s3.url()))
                .region(Region.of(s3.region()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .forcePathStyle(true)
                .build();
    }

    private static void execute(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement()) { // one Statement per SQL: duckdb_jdbc closes it after a failure
            s.execute(sql);
        }
    }

    private static long query(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
