package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.testkit.DuckDbExtensions;
import io.sluice.testkit.TestingS3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code incremental: { new-files: true }}: each run loads the Parquet files no done run loaded before (same name,
 * size and modification time), from local disk and from an S3 server on loopback; a file rewritten in place is new
 * again.
 */
class IncrementalFilesTest {
    @TempDir
    Path dir;

    @Test
    void eachRunLoadsOnlyTheFilesThatLandedSinceFromLocalDisk() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "newfiles", 1);
        f.sql(f.target, "TRUNCATE items");
        Path files = Files.createDirectories(dir.resolve("landing"));
        write(files.resolve("items-1.parquet").toString(), 1, 1000);
        write(files.resolve("items-2.parquet").toString(), 1001, 2000);
        Path spec = spec(f, "\"" + files.resolve("items-*.parquet") + "\"", "");
        threeRuns(f, spec, path -> write(files.resolve(path).toString(), 2001, 2500),
                () -> write(files.resolve("items-1.parquet").toString(), 1, 1100));
    }

    @Test
    void eachRunLoadsOnlyTheFilesThatLandedSinceFromS3() throws Exception {
        DuckDbExtensions.require("httpfs");
        LedgerFixture f = new LedgerFixture(dir, "newfiless3", 1);
        f.sql(f.target, "TRUNCATE items");
        TestingS3 s3 = TestingS3.shared();
        String bucket = "landing-" + ProcessHandle.current().pid();
        s3.createBucket(bucket);
        Path staging = Files.createDirectories(dir.resolve("staging"));
        upload(s3, bucket, staging, "items-1.parquet", 1, 1000);
        upload(s3, bucket, staging, "items-2.parquet", 1001, 2000);
        String s3Settings = """
                    extension-directory: "%s"
                    s3: { endpoint: "%s", region: %s, url-style: path, use-ssl: false, key-id: %s, secret: %s }
                """.formatted(DuckDbExtensions.directory(), s3.endpoint(), s3.region(), s3.accessKey(),
                s3.secretKey());
        Path spec = spec(f, "\"s3://" + bucket + "/items-*.parquet\"", s3Settings);
        threeRuns(f, spec, path -> upload(s3, bucket, staging, path, 2001, 2500),
                () -> upload(s3, bucket, staging, "items-1.parquet", 1, 1100));
    }

    private void threeRuns(LedgerFixture f, Path spec, Landing landing, Rewrite rewrite) throws Exception {
        run(spec, "files-1");
        assertEquals(2000, f.scalar(f.target, "SELECT count(*) FROM items"), "the first run loads both files");
        run(spec, "files-2");
        assertEquals(2000, f.scalar(f.target, "SELECT count(*) FROM items"), "no file landed: nothing loaded");

        landing.land("items-3.parquet");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("items-3.parquet") && !plan.out().contains("items-2.parquet"), plan.out());
        run(spec, "files-3");
        assertEquals(2500, f.scalar(f.target, "SELECT count(*) FROM items"), "only the file that landed");

        rewrite.rewrite(); // a file rewritten in place (another size) is a new file
        run(spec, "files-4");
        assertEquals(3600, f.scalar(f.target, "SELECT count(*) FROM items"), "the rewritten file again, whole");
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM items WHERE id = 1"));
    }

    private Path spec(LedgerFixture f, String glob, String lakeSettings) throws Exception {
        Path spec = dir.resolve("files.yaml");
        Files.writeString(spec, """
                version: 1
                name: new-files
                connections:
                  lake:
                    type: duckdb
                %s  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: lake, files: %s }
                    target: { connection: dst, table: items }
                    load-mode: append
                    incremental: { new-files: true }
                """.formatted(lakeSettings, f.pg.jdbcUrl(f.target), f.pg.user(), glob));
        return spec;
    }

    private static void run(Path spec, String runId) {
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", runId);
        assertEquals(0, run.exitCode(), run.all());
    }

    private static void write(String target, int first, int last) {
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT g::BIGINT AS id, 'item ' || g AS name, (g / 7.0)::DECIMAL(10,2) AS price "
                    + "FROM range(" + first + ", " + (last + 1) + ") t(g)) TO '" + target + "' (FORMAT parquet)");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void upload(TestingS3 s3, String bucket, Path staging, String name, int first, int last) {
        Path file = staging.resolve(name);
        write(file.toString(), first, last);
        s3.putObject(bucket, name, file);
    }

    private interface Landing {
        void land(String name) throws Exception;
    }

    private interface Rewrite {
        void rewrite() throws Exception;
    }
}
