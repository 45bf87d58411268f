package io.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;
import io.sluice.testkit.DuckDbExtensions;

/** The harness's command line. */
public record BenchOptions(double scale, int runs, Optional<PgEndpoint> sourceUrl, Optional<PgEndpoint> targetUrl,
                           Path repository, Path outputDirectory, Path workDirectory, Path sluiceJar,
                           Path extensionDirectory, List<String> sluiceJvmOptions, Optional<Pattern> scenarios,
                           String sharedBuffers, boolean s3, boolean help, List<String> userArguments,
                           boolean ordersOnly) {
    static final String USAGE = """
            Usage: bash runner/runner-bench/bench.sh [options]
              --scale SF              TPC-H scale factor (default 1; 0.1 takes a few minutes)
              --runs N                runs per scenario; the median is reported (default 3)
              --source-url URL        use this PostgreSQL as the source instead of an embedded one
              --target-url URL        use this PostgreSQL as the target instead of an embedded one
                                      (jdbc:postgresql://host:port/db?user=u&password=p; the harness creates and
                                      drops schema sluice_bench in it)
              --scenarios REGEX       only scenarios whose id matches, e.g. 'lineitem-logged/(ingest|sluice-ctid)'
              --output DIR            where results.md, throughput.png and runs.csv go (default docs/benchmarks)
              --work DIR              generated data, specs and logs (default runner/runner-bench/target/bench-work)
              --sluice-jar JAR        the Sluice CLI jar (default runner/runner-app/target/sluice.jar)
              --sluice-java-opts OPTS JVM options for Sluice, space-separated; they replace the launcher's
                                      defaults, as SLUICE_JAVA_OPTS does (e.g. "-XX:+UseSerialGC
                                      -XX:CompileThresholdScaling=4 -Xmx256m")
              --shared-buffers SIZE   shared_buffers of the embedded servers (default 2GB)
              --no-s3                 skip the S3 scenarios (no in-process S3 server)
              --preset orders-sf10    FastTransfer's Parquet scenario at its own scale: --scale 10 --runs 5
                                      --scenarios '^orders-' --output docs/benchmarks/orders-sf10, and only orders is
                                      generated and loaded (no lineitem); options after it override it
              --help
            """;

    public BenchOptions {
        requireNonNull(sourceUrl, "sourceUrl is null");
        requireNonNull(targetUrl, "targetUrl is null");
        requireNonNull(repository, "repository is null");
        requireNonNull(outputDirectory, "outputDirectory is null");
        requireNonNull(workDirectory, "workDirectory is null");
        requireNonNull(sluiceJar, "sluiceJar is null");
        requireNonNull(extensionDirectory, "extensionDirectory is null");
        sluiceJvmOptions = List.copyOf(requireNonNull(sluiceJvmOptions, "sluiceJvmOptions is null"));
        requireNonNull(scenarios, "scenarios is null");
        requireNonNull(sharedBuffers, "sharedBuffers is null");
        userArguments = List.copyOf(requireNonNull(userArguments, "userArguments is null"));
        if (!(scale > 0)) {
            throw new IllegalArgumentException("--scale must be positive: " + scale);
        }
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1: " + runs);
        }
    }

    public static BenchOptions parse(String... args) {
        double scale = 1;
        int runs = 3;
        Optional<PgEndpoint> source = Optional.empty();
        Optional<PgEndpoint> target = Optional.empty();
        Path repository = null;
        Path output = null;
        Path work = null;
        Path jar = null;
        List<String> jvm = List.of();
        Optional<Pattern> scenarios = Optional.empty();
        String sharedBuffers = "2GB";
        boolean s3 = true;
        boolean help = false;
        boolean ordersOnly = false;
        List<String> user = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            boolean internal = a.equals("--repo");
            if (!internal) {
                user.add(a);
            }
            switch (a) {
                case "--help", "-h" -> help = true;
                case "--no-s3" -> s3 = false;
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(a.startsWith("--") ? a + " needs a value"
                                : "unknown argument: " + a);
                    }
                    String v = args[++i];
                    if (!internal) {
                        user.add(v.contains(" ") ? "'" + v + "'" : v);
                    }
                    switch (a) {
                        case "--scale" -> scale = Double.parseDouble(v);
                        case "--runs" -> runs = Integer.parseInt(v);
                        case "--source-url" -> source = Optional.of(PgEndpoint.parse(v));
                        case "--target-url" -> target = Optional.of(PgEndpoint.parse(v));
                        case "--repo" -> repository = Path.of(v);
                        case "--output" -> output = Path.of(v);
                        case "--work" -> work = Path.of(v);
                        case "--sluice-jar" -> jar = Path.of(v);
                        case "--sluice-java-opts" -> jvm = v.isBlank() ? List.of() : List.of(v.trim().split("\\s+"));
                        case "--scenarios" -> scenarios = Optional.of(Pattern.compile(v));
                        case "--shared-buffers" -> sharedBuffers = v;
                        case "--preset" -> {
                            if (!v.equals("orders-sf10")) {
                                throw new IllegalArgumentException("unknown preset: " + v + " (known: orders-sf10)");
                            }
                            scale = 10;
                            runs = 5;
                            scenarios = Optional.of(Pattern.compile("^orders-"));
                            ordersOnly = true;
                        }
                        default -> throw new IllegalArgumentException("unknown option: " + a);
                    }
                }
            }
        }
        Path repo = (repository != null ? repository : findRepository()).toAbsolutePath().normalize();
        return new BenchOptions(scale, runs, source, target, repo,
                absolute(output, repo.resolve(ordersOnly ? "docs/benchmarks/orders-sf10" : "docs/benchmarks")),
                absolute(work, repo.resolve("runner/runner-bench/target/bench-work")),
                absolute(jar, repo.resolve("runner/runner-app/target/sluice.jar")),
                extensionDirectory(repo), jvm, scenarios, sharedBuffers, s3, help, user, ordersOnly);
    }

    /** The command as a user types it, for the report. */
    public String commandLine() {
        return ("bash runner/runner-bench/bench.sh " + String.join(" ", userArguments)).trim();
    }

    private static Path absolute(Path given, Path fallback) {
        return (given != null ? given : fallback).toAbsolutePath().normalize();
    }

    private static Path extensionDirectory(Path repo) {
        String configured = System.getProperty(DuckDbExtensions.PROPERTY,
                System.getenv(DuckDbExtensions.ENV));
        return configured != null && !configured.isBlank() ? Path.of(configured).toAbsolutePath()
                : repo.resolve(".ci/cache/duckdb-extensions");
    }

    private static Path findRepository() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("runner/runner-bench/pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalArgumentException("run from inside the Sluice repository, or pass --repo DIR");
    }
}
