package io.sluice.bench;

import io.sluice.testkit.DuckDbExtensions;
import io.sluice.testkit.TestingS3;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The benchmark harness: starts the servers, generates TPC-H, runs every scenario, writes the report. Exit code 0
 * when every scenario that could run did run with the right row counts, 1 when one failed, 2 on a usage error.
 */
public final class BenchMain {
    static final String RESULTS_FILE = "results.md";
    static final String CHART_FILE = "throughput.png";
    static final String RUNS_FILE = "runs.csv";

    private final BenchOptions options;
    private final BenchLog log = new BenchLog(System.err);
    /** Servers and the S3 server, closed in reverse order on exit or on Ctrl-C. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private String sluiceJarBuilt = "missing";

    BenchMain(BenchOptions options) {
        this.options = requireNonNull(options, "options is null");
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.print(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(BenchOptions.USAGE);
            return;
        }
        int code;
        try {
            code = new BenchMain(options).run();
        } catch (Exception e) {
            System.err.println("bench: failed: " + e);
            e.printStackTrace(System.err);
            code = 1;
        }
        System.exit(code);
    }

    int run() throws Exception {
        Thread cleanup = new Thread(this::closeResources, "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            return runBenchmark();
        } finally {
            closeResources();
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running already
            }
        }
    }

    private int runBenchmark() throws Exception {
        Files.createDirectories(options.workDirectory());
        Files.createDirectories(options.outputDirectory());
        Path tpch = options.extensionDirectory().resolve(DuckDbExtensions.DUCKDB_VERSION)
                .resolve(DuckDbExtensions.platform()).resolve("tpch.duckdb_extension");
        if (!Files.isRegularFile(tpch)) {
            System.err.println("bench: the DuckDB tpch extension is missing (" + tpch
                    + "); run `bash .ci/provision-duckdb-extensions.sh` (bench.sh does)");
            return 2;
        }
        log.step("TPC-H SF " + options.scale() + ", " + options.runs() + " run(s) per scenario; work folder "
                + options.workDirectory());
        BenchPostgresServer source = server("source", options.sourceUrl());
        BenchPostgresServer target = server("target", options.targetUrl());
        log.step("source: " + source + " (PostgreSQL " + source.version() + "); target: " + target
                + " (PostgreSQL " + target.version() + ")");

        TpchData data = new TpchGenerator(options.extensionDirectory(), options.workDirectory(), options.scale(), log)
                .generate(source, target, !options.ordersOnly());
        log.step(String.format(Locale.ROOT, "lineitem %,d rows (%.1f MB binary), orders %,d rows (%.1f MB binary)",
                data.lineitem().rows(), data.lineitem().binaryBytes() / 1e6, data.orders().rows(),
                data.orders().binaryBytes() / 1e6));

        String s3Unavailable = "--no-s3 was given";
        Optional<S3Orders> s3 = Optional.empty();
        if (options.s3()) {
            try {
                s3 = Optional.of(uploadToS3(data));
            } catch (RuntimeException e) {
                s3Unavailable = "the local S3 server could not be started or filled: " + e;
                log.loud(s3Unavailable);
            }
        }

        SluiceLauncher sluice = new SluiceLauncher(options.repository().resolve("sluice"),
                Path.of(System.getProperty("java.home")), snapshotSluiceJar(), options.sluiceJvmOptions(), options.workDirectory(),
                SluiceSpec.environment(source.endpoint(), target.endpoint(), s3.map(S3Orders::settings)));
        List<Scenario> scenarios = new ScenarioCatalog(source, target, data, sluice, options.extensionDirectory(), s3,
                s3Unavailable, options.workDirectory().resolve("logs")).all().stream()
                .filter(s -> options.scenarios().map(p -> p.matcher(s.info().id()).find()).orElse(true)).toList();
        log.step(scenarios.size() + " scenario(s)");

        // The scaling model is lineitem's; without lineitem (--preset orders-sf10) there is no model to feed.
        double scanMbps = 0;
        if (data.lineitem().rows() > 0) {
            log.step("measuring the source's single-stream scan rate (input of the scaling model)");
            scanMbps = new SourceScanProbe(source.endpoint(), data.lineitem()).megabytesPerSecond(options.runs());
        }
        log.step("measuring a Sluice run with nothing to copy (its fixed cost)");
        Optional<ToolRun> fixedCost = new SluiceFixedCostProbe(sluice, source.endpoint(), target.endpoint())
                .measure(options.runs());
        BenchRunner runner = new BenchRunner(source.endpoint(), target.endpoint(), data, options.runs(), log);
        List<ScenarioResult> results = runner.run(scenarios);

        MachineDescription machine = describe(source, target, data);
        String title = String.format(Locale.ROOT, "Sluice throughput by degree: TPC-H SF %s, median of %d, %s",
                machine.value("TPC-H scale").orElse("?"), options.runs(), machine.value("date").orElse(""));
        Path chart = options.outputDirectory().resolve(CHART_FILE);
        new ThroughputChart(results, title).write(chart);
        String report = new MarkdownReport(machine, options.commandLine(), List.of(data.lineitem(), data.orders()),
                results, CHART_FILE, ScalingModel.of(new ResultComparison(results), scanMbps, data.lineitem(), fixedCost)
                .map(ScalingModel::render)).render();
        Files.writeString(options.outputDirectory().resolve(RESULTS_FILE), report);
        Files.writeString(options.outputDirectory().resolve(RUNS_FILE), new RunsCsv(results).render());
        log.step("wrote " + options.outputDirectory().resolve(RESULTS_FILE) + ", " + chart + ", " + RUNS_FILE);

        for (AcceptanceCheck check : AcceptanceCheck.evaluate(new ResultComparison(results))) {
            System.out.printf("%-13s %-90s %s%n", check.verdict(), check.criterion(), check.measured());
        }
        long failed = results.stream().filter(r -> r.status() == ScenarioResult.Status.FAILED).count();
        if (runner.sawWrongRowCount()) {
            log.loud("a run left a WRONG ROW COUNT in the target: see " + RESULTS_FILE);
        }
        if (failed > 0) {
            log.step(failed + " scenario(s) failed: see " + options.outputDirectory().resolve(RESULTS_FILE));
            return 1;
        }
        return 0;
    }

    /**
     * A copy of the Sluice jar taken once, so every run measures the same build even when the jar is rebuilt while
     * the harness runs (developers share the tree). Missing jar: the Sluice scenarios report it as their skip reason.
     */
    private Path snapshotSluiceJar() throws java.io.IOException {
        Path jar = options.sluiceJar();
        if (!Files.isRegularFile(jar)) {
            return jar;
        }
        Path copy = options.workDirectory().resolve("sluice-under-test.jar");
        Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        sluiceJarBuilt = Files.getLastModifiedTime(jar).toString();
        return copy;
    }

    private BenchPostgresServer server(String role, Optional<PgEndpoint> url) {
        BenchPostgresServer server = url.map(u -> BenchPostgresServer.external(role, u)).orElseGet(() -> {
            log.step("starting the embedded PostgreSQL " + role);
            return BenchPostgresServer.startEmbedded(role, options.workDirectory(), options.sharedBuffers());
        });
        resources.push(server);
        return server;
    }

    private S3Orders uploadToS3(TpchData data) {
        log.step("starting the local S3 server and uploading the Parquet files");
        Path store = options.workDirectory().resolve("s3");
        BenchPostgresServer.deleteRecursively(store);
        TestingS3 s3 = TestingS3.builder().filesystem(store).start();
        resources.push(s3);
        String bucket = "bench";
        s3.createBucket(bucket);
        for (int i = 0; i < TpchData.PARQUET_FILES; i++) {
            String name = TpchData.parquetFileName(i);
            s3.putObject(bucket, "orders/" + name, data.parquetDirectory().resolve(name));
        }
        return new S3Orders(new SluiceSpec.S3(s3.endpoint(), s3.region(), s3.accessKey(), s3.secretKey()),
                "s3://" + bucket + "/orders/*.parquet", s3.duckDbSecretSql("bench_s3"));
    }

    private MachineDescription describe(BenchPostgresServer source, BenchPostgresServer target, TpchData data)
            throws SQLException {
        MachineDescription.Builder b = MachineDescription.collect(options.repository());
        String scale = java.math.BigDecimal.valueOf(data.scale()).stripTrailingZeros().toPlainString();
        b.add("TPC-H scale", scale);
        b.add("TPC-H", "TPC-H SF " + scale + ", " + options.runs() + " run(s) per scenario");
        for (BenchPostgresServer s : List.of(source, target)) {
            b.add("PostgreSQL " + s.role(), s.version() + (s.isEmbedded() ? " (embedded, zonky binaries)" : " (external)")
                    + ", " + s.reportedSettings());
        }
        b.add("DuckDB", duckDbVersion());
        for (String tool : List.of("psql", "pg_dump")) {
            b.add(tool, ClientTool.find(tool).map(ClientTool::version).orElse("not on the PATH"));
        }
        b.add("Sluice", options.sluiceJar() + " (built " + sluiceJarBuilt + "), run through ./sluice"
                + (options.sluiceJvmOptions().isEmpty() ? ""
                : " with SLUICE_JAVA_OPTS=" + String.join(" ", options.sluiceJvmOptions())));
        return b.build();
    }

    private static String duckDbVersion() {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version()")) {
            rs.next();
            String jdbc = org.duckdb.DuckDBDriver.class.getPackage().getImplementationVersion();
            return rs.getString(1) + (jdbc == null ? "" : " (duckdb_jdbc " + jdbc + ")");
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private synchronized void closeResources() {
        while (!resources.isEmpty()) {
            AutoCloseable resource = resources.pop();
            try {
                resource.close();
            } catch (Exception e) {
                System.err.println("bench: could not stop " + resource + ": " + e);
            }
        }
        // A Sluice or psql child still running (Ctrl-C): the harness started it, so it ends it.
        ProcessHandle.current().children().forEach(child -> {
            child.descendants().forEach(ProcessHandle::destroy);
            child.destroy();
        });
    }
}
