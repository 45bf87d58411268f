package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.app.cli.SluiceCommand;
import io.sluice.app.crash.FaultyConnectors.Fault;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files read through DuckDB load what they hold, once: no value rounded to another file's type, no column dropped,
 * no file loaded twice by a new-files stream after a rewrite, a resume or a change during the run.
 */
class FileTrustTest {
    @TempDir
    Path dir;

    @AfterEach
    void disarm() {
        FaultyConnectors.disarm();
    }

    @Test
    void filesWhoseTypesTheFirstFilesCastWouldRoundOrWhoseColumnsDifferAreRefusedNamingFileAndColumn()
            throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "filetypes", 1);
        f.sql(f.target, "TRUNCATE items", "ALTER TABLE items ALTER price TYPE numeric(18,4)");
        Path files = Files.createDirectories(dir.resolve("types"));
        duck("COPY (SELECT 1::BIGINT AS id, 'a' AS name, 1.23::DECIMAL(10,2) AS price) TO '"
                + files.resolve("a.parquet") + "' (FORMAT parquet)");
        duck("COPY (SELECT 2::BIGINT AS id, 'b' AS name, 1.2345::DECIMAL(18,4) AS price) TO '"
                + files.resolve("b.parquet") + "' (FORMAT parquet)");
        Path spec = spec(f, files.resolve("*.parquet").toString(), "");
        CliRun narrowed = CliRun.of("run", spec.toString());
        assertEquals(4, narrowed.exitCode(), narrowed.all());
        assertTrue(narrowed.all().contains("error[DUCK016]") && narrowed.all().contains("column price is "
                + "DECIMAL(18,4) in " + files.resolve("b.parquet") + " but DECIMAL(10,2)"), narrowed.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing was read");

        // A column only a later file has, and a double after a bigint: all listed, whatever the order.
        Files.delete(files.resolve("b.parquet"));
        duck("COPY (SELECT 2.5::DOUBLE AS id, 'b' AS name, 1.5::DECIMAL(10,2) AS price, 'x' AS extra) TO '"
                + files.resolve("b.parquet") + "' (FORMAT parquet)");
        CliRun extra = CliRun.of("run", spec.toString());
        assertEquals(4, extra.exitCode(), extra.all());
        assertTrue(extra.all().contains("has column extra (VARCHAR), which the glob's description lacks")
                && extra.all().contains("column id is DOUBLE in"), extra.all());

        // A wider type in the first file than in a later one loses nothing: loaded.
        Files.delete(files.resolve("b.parquet"));
        duck("COPY (SELECT 2::INTEGER AS id, 'b' AS name, 1.5::DECIMAL(10,2) AS price) TO '"
                + files.resolve("b.parquet") + "' (FORMAT parquet)");
        CliRun widened = CliRun.of("run", spec.toString());
        assertEquals(0, widened.exitCode(), widened.all());
        assertEquals(2, f.scalar(f.target, "SELECT count(*) FROM items"));

        // CSV files sniffed apart (whole numbers in one, 10.7 in the other) are never cast into each other's type
        // on the way: refused as DuckDB refuses the glob itself, naming the file.
        f.sql(f.target, "TRUNCATE items", "ALTER TABLE items ALTER price TYPE double precision");
        Path csv = Files.createDirectories(dir.resolve("csv"));
        Files.writeString(csv.resolve("1.csv"), "id,name,price\n1,a,10\n");
        Files.writeString(csv.resolve("2.csv"), "id,name,price\n2,b,10.7\n");
        CliRun mixed = CliRun.of("run", spec(f, csv.resolve("*.csv").toString(), "").toString());
        assertEquals(4, mixed.exitCode(), mixed.all());
        assertTrue(mixed.all().contains("error[DUCK016]") && mixed.all().contains("column price is"), mixed.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "no row rounded into the target");
    }

    @Test
    void aSameSecondSameSizeRewriteIsANewVersion() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "samesecond", 1);
        f.sql(f.target, "TRUNCATE items");
        Path landing = Files.createDirectories(dir.resolve("landing"));
        Path file = landing.resolve("items-1.parquet");
        write(file, 1, 1000);
        Instant second = Instant.parse("2026-11-27T10:00:00Z");
        Files.setLastModifiedTime(file, FileTime.from(second.plusMillis(100)));
        Path spec = spec(f, landing.resolve("*.parquet").toString(), "    incremental: { new-files: true }\n");
        run(spec, "same-1", 0);
        write(file, 1, 1000); // the same rows again: the same size
        Files.setLastModifiedTime(file, FileTime.from(second.plusMillis(700))); // within the same second
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("items-1.parquet"), "a rewrite is a new version: " + plan.out());
        run(spec, "same-2", 0);
        assertEquals(2000, f.scalar(f.target, "SELECT count(*) FROM items"), "the rewritten file again, whole");
    }

    @Test
    void aResumeReadsTheFileAsItIsNowAndTheNextRunDoesNotLoadItAgain() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "resumefile", 1);
        f.sql(f.target, "TRUNCATE items");
        Path landing = Files.createDirectories(dir.resolve("landing"));
        write(landing.resolve("items-1.parquet"), 1, 1000);
        write(landing.resolve("items-2.parquet"), 1001, 2000);
        f.sql(f.target, "ALTER TABLE items ADD CONSTRAINT not_yet CHECK (id <= 1500)"); // items-2 fails to load
        Path spec = spec(f, landing.resolve("items-*.parquet").toString(), "    incremental: { new-files: true }\n");
        run(spec, "fix-1", 1);
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM items"));
        f.sql(f.target, "ALTER TABLE items DROP CONSTRAINT not_yet");
        write(landing.resolve("items-2.parquet"), 1001, 2000); // uploaded again, whole: a new version
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "fix-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(2000, f.scalar(f.target, "SELECT count(*) FROM items"));
        run(spec, "fix-2", 0);
        assertEquals(2000, f.scalar(f.target, "SELECT count(*) FROM items"), "the resumed file is not new again");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM items"), "each row once");
    }

    @Test
    void aFileRewrittenBetweenThePlanAndItsReadIsRefusedNotLoadedUnderTheOldVersion() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "changedfile", 1);
        f.sql(f.target, "TRUNCATE items");
        Path landing = Files.createDirectories(dir.resolve("landing"));
        write(landing.resolve("items-1.parquet"), 1, 1000);
        write(landing.resolve("items-2.parquet"), 1001, 2000);
        Path spec = spec(f, landing.resolve("items-*.parquet").toString(), "    incremental: { new-files: true }\n");
        Files.writeString(spec, Files.readString(spec).replace("type: duckdb", "type: faulty-duckdb"));
        FaultyConnectors.arm(Fault.BLOCK, 2);
        CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> {
            StringWriter out = new StringWriter();
            int exit = SluiceCommand.commandLine(CommandLine.defaultFactory()).setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(out, true)).execute("run", spec.toString(), "--run-id", "changed-1");
            return exit + "\n" + out;
        }, task -> Thread.ofPlatform().daemon().start(task));
        FaultyConnectors.awaitBlocked();
        write(landing.resolve("items-2.parquet"), 1001, 2500); // rewritten while the run holds its plan
        FaultyConnectors.release();
        String out = run.get(2, TimeUnit.MINUTES);
        assertTrue(out.startsWith("1\n") && out.contains("error[DUCK122]") && out.contains("items-2.parquet changed "
                + "before it was read"), out);
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "changed-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(2500, f.scalar(f.target, "SELECT count(*) FROM items"), "the new version, once");
        run(spec, "changed-2", 0);
        assertEquals(2500, f.scalar(f.target, "SELECT count(*) FROM items"), "and not again");
    }

    @Test
    void aCreatedTableHasTypesItsLoadWritesAndALatin1CsvGetsAFixThatApplies() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "createdtypes", 1);
        Path spec = dir.resolve("created.yaml");
        Files.writeString(spec, """
                version: 1
                name: created-types
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: spans
                    source: { connection: lake, query: "SELECT 1 AS id, [INTERVAL 1 DAY, INTERVAL 2 HOUR] AS spans" }
                    target: { connection: dst, table: spans, create: if-missing }
                """.formatted(f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun created = CliRun.of("run", spec.toString());
        assertEquals(0, created.exitCode(), created.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM spans"));

        // A struct holding a NaN: to_json writes it bare, which jsonb refuses; it arrives as PostgreSQL writes one.
        Path floats = dir.resolve("floats.yaml");
        Files.writeString(floats, Files.readString(spec).replace("name: spans", "name: floats")
                .replace("table: spans", "table: floats").replace("[INTERVAL 1 DAY, INTERVAL 2 HOUR] AS spans",
                        "{'x': 'NaN'::DOUBLE, 'y': [1.5, '-inf'::DOUBLE], 'z': 'Infinity or NaN'} AS point"));
        CliRun json = CliRun.of("run", floats.toString());
        assertEquals(0, json.exitCode(), json.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM floats WHERE point = '{\"x\": \"NaN\", \"y\": "
                + "[1.5, \"-Infinity\"], \"z\": \"Infinity or NaN\"}'::jsonb AND pg_typeof(point) = 'jsonb'::regtype"));

        Path latin1 = dir.resolve("latin1.csv");
        Files.write(latin1, "id,name,price\n1,caf\u00e9,1.5\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        CliRun encoding = CliRun.of("run", spec(f, latin1.toString(), "").toString());
        assertEquals(4, encoding.exitCode(), "found at plan time, nothing written: " + encoding.all());
        assertTrue(encoding.all().contains("encoding = 'latin-1'"), encoding.all());
    }

    @Test
    void s3NetworkFaultsAtPlanTimeSayTheStorageCannotBeReachedNotThatAFileIsCorrupt() throws Exception {
        io.sluice.testkit.DuckDbExtensions.require("httpfs");
        LedgerFixture f = new LedgerFixture(dir, "s3faults", 1);
        io.sluice.testkit.TestingS3 s3 = io.sluice.testkit.TestingS3.shared();
        String bucket = "faults-" + ProcessHandle.current().pid();
        s3.createBucket(bucket);
        Path staging = Files.createDirectories(dir.resolve("staging"));
        write(staging.resolve("items-1.parquet"), 1, 100);
        s3.putObject(bucket, "items-1.parquet", staging.resolve("items-1.parquet"));
        try (io.sluice.testkit.FaultProxy proxy = io.sluice.testkit.FaultProxy.to("127.0.0.1", s3.port())) {
            for (io.sluice.testkit.FaultProxy.Fault fault : List.of(io.sluice.testkit.FaultProxy.Fault.REFUSE,
                    io.sluice.testkit.FaultProxy.Fault.HTTP_503)) {
                proxy.inject(fault, 1_000);
                CliRun run = CliRun.of("run", s3Spec(f, s3, proxy.endpoint(), bucket, false).toString());
                assertEquals(4, run.exitCode(), fault + ": " + run.all());
                assertTrue(run.all().contains("error[DUCK107]") && !run.all().contains("DUCK300"), fault + ": "
                        + run.all());
            }
            proxy.pass();
            CliRun tls = CliRun.of("run", s3Spec(f, s3, proxy.endpoint(), bucket, true).toString());
            assertEquals(4, tls.exitCode(), tls.all());
            assertTrue(tls.all().contains("error[DUCK107]") && tls.all().contains("use-ssl"), tls.all());
        }
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"));
    }

    @Test
    void s3ReadsCutOrRefusedMidRunAreRetriedAndTheRunEndsExact() throws Exception {
        io.sluice.testkit.DuckDbExtensions.require("httpfs");
        LedgerFixture f = new LedgerFixture(dir, "s3cut", 1);
        f.sql(f.target, "TRUNCATE items");
        io.sluice.testkit.TestingS3 s3 = io.sluice.testkit.TestingS3.shared();
        String bucket = sixFiles(s3, "cut");
        try (io.sluice.testkit.FaultProxy proxy = io.sluice.testkit.FaultProxy.to("127.0.0.1", s3.port())) {
            Path spec = s3Spec(f, s3, proxy.endpoint(), bucket, false);
            Path log = dir.resolve("cut.log");
            Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "cut-1");
            LedgerFixture.waitUntil(child, log, () -> f.donePartitions("cut-1") >= 1);
            signal(child, "STOP"); // the files left are read through the faults
            proxy.cutAfterBytes(2_000); // "Transferred a partial file"
            proxy.inject(io.sluice.testkit.FaultProxy.Fault.CUT, 2);
            signal(child, "CONT");
            LedgerFixture.waitUntil(child, log, () -> proxy.faulted() >= 2);
            proxy.inject(io.sluice.testkit.FaultProxy.Fault.REFUSE, 1); // "Could not connect to server"
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the run ended");
            String out = Files.readString(log);
            assertEquals(0, child.exitValue(), out);
            assertTrue(proxy.faulted() >= 2, "reads met the faults");
        }
        assertEquals(120_000, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM items"), "each row once");
    }

    // Full tier only: waits out a 20 s grace. Quick: s3ReadsCutOrRefusedMidRunAreRetriedAndTheRunEndsExact and
    // FaultInjectionTest's SIGTERM.
    @Test
    @Tag(TestTier.FULL_ONLY)
    void sigtermStopsARunWhoseS3ReadStallsAndTheResumeLoadsEachFileOnce() throws Exception {
        io.sluice.testkit.DuckDbExtensions.require("httpfs");
        LedgerFixture f = new LedgerFixture(dir, "s3stall", 1);
        f.sql(f.target, "TRUNCATE items");
        io.sluice.testkit.TestingS3 s3 = io.sluice.testkit.TestingS3.shared();
        String bucket = sixFiles(s3, "stall");
        try (io.sluice.testkit.FaultProxy proxy = io.sluice.testkit.FaultProxy.to("127.0.0.1", s3.port())) {
            Path spec = s3Spec(f, s3, proxy.endpoint(), bucket, false);
            Path log = dir.resolve("stall.log");
            Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "stall-1");
            LedgerFixture.waitUntil(child, log, () -> f.donePartitions("stall-1") >= 1);
            signal(child, "STOP"); // so the files left are still to be read when the storage stalls
            proxy.inject(io.sluice.testkit.FaultProxy.Fault.STALL, 1_000_000);
            signal(child, "CONT");
            LedgerFixture.waitUntil(child, log, () -> proxy.faulted() >= 1); // a read now waits for an answer
            long signalled = System.nanoTime();
            child.destroy(); // SIGTERM
            assertTrue(child.waitFor(90, TimeUnit.SECONDS), "the run ended after SIGTERM");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - signalled);
            assertEquals(130, child.exitValue(), Files.readString(log));
            assertTrue(seconds <= 45, "stopped within its grace, not after the storage's timeouts: " + seconds
                    + " s\n" + Files.readString(log));
            proxy.pass();
            CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "stall-1");
            assertEquals(0, resumed.exitCode(), resumed.all());
        }
        assertEquals(120_000, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) - count(DISTINCT id) FROM items"), "each row once");
    }

    /** A bucket of its own holding items-0..5.parquet, 20,000 rows each (ids 1..120,000). */
    private String sixFiles(io.sluice.testkit.TestingS3 s3, String name) throws Exception {
        String bucket = name + "-" + ProcessHandle.current().pid();
        s3.createBucket(bucket);
        Path staging = Files.createDirectories(dir.resolve(name));
        for (int i = 0; i < 6; i++) {
            Path file = staging.resolve("items-" + i + ".parquet");
            write(file, i * 20_000 + 1, (i + 1) * 20_000);
            s3.putObject(bucket, "items-" + i + ".parquet", file);
        }
        return bucket;
    }

    private static void signal(Process process, String signal) throws Exception {
        io.sluice.app.Signals.send(process, signal);
    }

    private Path s3Spec(LedgerFixture f, io.sluice.testkit.TestingS3 s3, String endpoint, String bucket,
                        boolean ssl) throws Exception {
        Path spec = dir.resolve("s3faults.yaml");
        Files.writeString(spec, """
                version: 1
                name: s3-faults
                connections:
                  lake:
                    type: duckdb
                    extension-directory: "%s"
                    s3: { endpoint: "%s", region: %s, url-style: path, use-ssl: %s, key-id: %s, secret: %s }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: lake, files: "s3://%s/items-*.parquet" }
                    target: { connection: dst, table: items }
                    load-mode: append
                """.formatted(io.sluice.testkit.DuckDbExtensions.directory(), endpoint, s3.region(), ssl,
                s3.accessKey(), s3.secretKey(), f.pg.jdbcUrl(f.target), f.pg.user(), bucket));
        return spec;
    }

    private Path spec(LedgerFixture f, String glob, String extra) throws Exception {
        Path spec = dir.resolve("files-" + Math.abs(glob.hashCode()) + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: file-trust-%d
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: lake, files: "%s" }
                    target: { connection: dst, table: items }
                    load-mode: append
                """.formatted(Math.abs(glob.hashCode()), f.pg.jdbcUrl(f.target), f.pg.user(), glob) + extra);
        return spec;
    }

    private static void run(Path spec, String runId, int exit) {
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", runId);
        assertEquals(exit, run.exitCode(), run.all());
    }

    private static void write(Path target, int first, int last) throws Exception {
        duck("COPY (SELECT g::BIGINT AS id, 'item ' || g AS name, (g / 7.0)::DECIMAL(10,2) AS price FROM range("
                + first + ", " + (last + 1) + ") t(g)) TO '" + target + "' (FORMAT parquet)");
    }

    private static void duck(String sql) throws Exception {
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            s.execute(sql);
        }
    }
}
