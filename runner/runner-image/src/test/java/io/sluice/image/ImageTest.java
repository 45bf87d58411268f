package io.sluice.image;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The image as a container runtime would run it, with no daemon: its config read from the tarball Jib wrote, its
 * layers unpacked in order into a root filesystem, and its entrypoint run there as its user, with its environment
 * and working directory, in a mount and PID namespace of its own (proc, /dev, a tmpfs /tmp and the host's
 * /etc/hosts mounted as a runtime mounts them), through chroot. Needs root, as building its base does.
 */
class ImageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VERSION = System.getProperty("sluice.image.version", "");

    @TempDir
    static Path work;
    static JsonNode config;
    static Path rootfs;

    @BeforeAll
    static void unpack() throws Exception {
        Path tar = Path.of(System.getProperty("sluice.image.tar"));
        Path image = Files.createDirectories(work.resolve("image"));
        assertEquals(0, exec(List.of("tar", "xf", tar.toString(), "-C", image.toString())).code);
        JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
        config = JSON.readTree(image.resolve(manifest.get("Config").asString()).toFile());
        rootfs = Files.createDirectories(work.resolve("rootfs"));
        for (JsonNode layer : manifest.get("Layers")) {
            Run untar = exec(List.of("tar", "--numeric-owner", "-xf", image.resolve(layer.asString()).toString(),
                    "-C", rootfs.toString()));
            assertEquals(0, untar.code, untar.output);
        }
    }

    @Test
    void itsConfigRunsSluiceAsANonRootUserWithTheServicePortAndItsVersionLabelled() {
        JsonNode c = config.get("config");
        assertEquals("[\"/opt/sluice/bin/sluice\"]", c.get("Entrypoint").toString());
        assertEquals("65532:65532", c.get("User").asString());
        assertEquals("/var/lib/sluice", c.get("WorkingDir").asString());
        assertTrue(c.get("ExposedPorts").has("8080/tcp"), c.toString());
        List<String> env = new ArrayList<>();
        c.get("Env").forEach(e -> env.add(e.asString()));
        assertTrue(env.contains("SLUICE_HOME=/var/lib/sluice") && env.contains("JAVA_HOME=/opt/java"), env.toString());
        JsonNode labels = c.get("Labels");
        assertEquals(VERSION, labels.get("org.opencontainers.image.version").asString());
        assertTrue(labels.get("org.opencontainers.image.revision").asString().matches("[0-9a-f]{40}"),
                labels.toString());
        assertEquals("linux", config.get("os").asString());
        assertEquals("amd64", config.get("architecture").asString());
    }

    @Test
    void theDuckDbExtensionsAreInsideSoNothingIsDownloadedAtRunTime() {
        for (String extension : List.of("httpfs", "aws")) {
            assertTrue(Files.isRegularFile(rootfs.resolve("opt/sluice/duckdb-extensions/v1.5.5/linux_amd64/"
                    + extension + ".duckdb_extension")), extension);
        }
    }

    /**
     * The image's own SBOM (/opt/sluice/sbom/bom.json) lists what the image ships: each jar under lib/ by name and
     * version (DuckDB's as the linux_amd64 jar it is, by its hash), each extension file, the Java runtime; and no
     * arm64 file is in the image.
     */
    @Test
    void itsBillOfMaterialsListsWhatTheImageShipsAndNoArm64File() throws Exception {
        Path sluice = rootfs.resolve("opt/sluice");
        JsonNode bom = JSON.readTree(sluice.resolve("sbom/bom.json").toFile());
        java.util.Set<String> jars = new java.util.HashSet<>();
        java.util.Map<String, String> shaByPurl = new java.util.HashMap<>();
        java.util.Set<String> files = new java.util.HashSet<>();
        for (JsonNode c : bom.get("components")) {
            jars.add(c.path("name").asString() + "-" + c.path("version").asString() + ".jar");
            shaByPurl.put(c.path("purl").asString(), c.path("hashes").path(0).path("content").asString());
            c.path("properties").forEach(p -> files.add(p.path("value").asString()));
        }
        List<String> unlisted = new ArrayList<>();
        try (java.util.stream.Stream<Path> walk = Files.walk(sluice.resolve("lib/app/lib"))) {
            walk.filter(Files::isRegularFile).map(f -> f.getFileName().toString()).filter(n -> !jars.contains(n))
                    .forEach(unlisted::add);
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(sluice.resolve("duckdb-extensions"))) {
            walk.filter(Files::isRegularFile).map(f -> sluice.relativize(f).toString()).filter(f -> !files.contains(f))
                    .forEach(unlisted::add);
        }
        assertEquals(List.of(), unlisted, "in the image, not in its SBOM");
        Path duckdb;
        try (java.util.stream.Stream<Path> list = Files.list(sluice.resolve("lib/app/lib"))) {
            duckdb = list.filter(f -> f.getFileName().toString().startsWith("duckdb_jdbc-")).findFirst().orElseThrow();
        }
        String purl = shaByPurl.keySet().stream().filter(p -> p.startsWith("pkg:maven/org.duckdb/duckdb_jdbc@"))
                .findFirst().orElseThrow();
        assertTrue(purl.contains("classifier=linux_amd64"), purl);
        assertEquals(sha256(duckdb), shaByPurl.get(purl), "the SBOM's hash is the shipped DuckDB jar's");
        assertTrue(files.contains("/opt/java") && Files.isRegularFile(rootfs.resolve("opt/java/release")),
                "the Java runtime: " + files);
        try (java.util.stream.Stream<Path> walk = Files.walk(sluice)) {
            assertEquals(List.of(), walk.map(Path::toString).filter(f -> f.contains("arm64")).toList());
        }
    }

    private static String sha256(Path file) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(file)));
    }

    @Test
    void itsEntrypointPrintsTheVersionAndRunsTheEmbeddedQuickstartFromTheUnpackedImage() throws Exception {
        Run version = inContainer(List.of("version"));
        assertEquals(0, version.code, version.output);
        assertTrue(version.output.contains("sluice " + VERSION + " (commit "), version.output);
        assertTrue(version.output.contains("java 21."), "the image's own Java 21 runtime: " + version.output);

        Run run = inContainer(List.of("run", "/opt/sluice/examples/quickstart.yaml"));
        assertEquals(0, run.code, run.output);
        assertTrue(run.output.contains("2,000,000 rows") || run.output.contains("2000000"), run.output);
        assertTrue(Files.isDirectory(rootfs.resolve("var/lib/sluice/postgres-18")),
                "the embedded server's data in the image's state folder");

        Run parquet = inContainer(List.of("run", "/opt/sluice/examples/quickstart-parquet.yaml"));
        assertEquals(0, parquet.code, parquet.output);
    }

    /** The entrypoint with {@code args}, as the image's config says to run it, in namespaces of its own. */
    private static Run inContainer(List<String> args) throws Exception {
        JsonNode c = config.get("config");
        StringBuilder command = new StringBuilder("set -e; R=").append(quote(rootfs.toString()))
                .append("; mount -t proc proc \"$R/proc\"; mount --rbind /dev \"$R/dev\"; ")
                .append("mount -t tmpfs tmpfs \"$R/tmp\"; touch \"$R/etc/hosts\"; mount --bind /etc/hosts \"$R/etc/hosts\"; ")
                .append("exec chroot --userspec=").append(c.get("User").asString()).append(" \"$R\" /usr/bin/env -i");
        c.get("Env").forEach(e -> command.append(' ').append(quote(e.asString())));
        command.append(" /bin/sh -c ").append(quote("cd " + c.get("WorkingDir").asString() + " && exec \"$@\""))
                .append(" sh");
        c.get("Entrypoint").forEach(e -> command.append(' ').append(quote(e.asString())));
        args.forEach(a -> command.append(' ').append(quote(a)));
        return exec(List.of("unshare", "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c",
                command.toString()));
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private record Run(int code, String output) {
    }

    private static Run exec(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), String.join(" ", command));
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
