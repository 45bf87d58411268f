package io.sluice.core.spec;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The published JSON Schema and the loader agree: the committed schema is the generated one, every good spec passes
 * both, every bad-by-schema spec fails both. When a connector's options change, regenerate the published schema with
 * {@code ./mvnw -pl runner/runner-core test -Dtest=SpecSchemaTest -Dsluice.schema.update=true}.
 */
class SpecSchemaTest {
    private static final Path ROOT = Path.of("../..");
    static final Path PUBLISHED = ROOT.resolve("specs/sluice-spec-v1.schema.json");
    private static final ConnectorRegistry INSTALLED = ConnectorRegistry.fromClassPath();
    private static final SchemaValidation SCHEMA =
            new SchemaValidation(new SpecSchemaGenerator(INSTALLED).render());

    @Test
    void publishedSchemaIsTheGeneratedOne() throws IOException {
        String generated = new SpecSchemaGenerator(INSTALLED).render();
        if (Boolean.getBoolean("sluice.schema.update")) {
            Files.writeString(PUBLISHED, generated, StandardCharsets.UTF_8);
        }
        assertEquals(Files.readString(PUBLISHED, StandardCharsets.UTF_8), generated,
                PUBLISHED + " is stale: regenerate it with -Dsluice.schema.update=true (see this test's javadoc)");
    }

    static Stream<Path> goodSpecs() throws IOException {
        List<Path> specs = new ArrayList<>();
        for (Path dir : List.of(Path.of("src/test/resources/lint/good"), ROOT.resolve("specs/examples"),
                ROOT.resolve("examples"))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                            .filter(io.sluice.core.lint.Linter::looksLikeSpec)
                            .sorted().forEach(specs::add);
                }
            }
        }
        return specs.stream();
    }

    @ParameterizedTest
    @MethodSource("goodSpecs")
    void goodSpecPassesSchemaAndLoader(Path spec) throws IOException {
        assertEquals(List.of(), SCHEMA.errors(spec), "schema errors in " + spec);
        LoadResult lint = new SpecLoader(INSTALLED, Environment.of(Map.of()), SpecLoader.Mode.LINT).load(spec);
        assertEquals(List.of(), errors(lint), "lint errors in " + spec);
        LoadResult run = new SpecLoader(INSTALLED, everyVariableSet(), SpecLoader.Mode.RUN).load(spec);
        assertTrue(run.spec().isPresent(), () -> "run-mode load of " + spec + " failed: " + errors(run));
    }

    /** Examples name whatever variables a reader's deployment has; a run with all of them set must load. */
    private static Environment everyVariableSet() {
        Environment known = Environment.of(TestConnectors.exampleEnvironment());
        return new Environment() {
            @Override
            public java.util.Optional<String> variable(String name) {
                return known.variable(name).or(() -> java.util.Optional.of(name.endsWith("URL")
                        ? "jdbc:postgresql://localhost:5432/example" : "value-of-" + name));
            }

            @Override
            public String readFile(Path path) throws IOException {
                return known.readFile(path);
            }
        };
    }

    static Stream<Path> badBySchema() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/test/resources/schema/bad"))) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("badBySchema")
    void badSpecFailsSchemaAndLoader(Path spec) throws IOException {
        assertFalse(SCHEMA.errors(spec).isEmpty(), "the schema accepts " + spec);
        LoadResult result = new SpecLoader(INSTALLED, Environment.of(Map.of()), SpecLoader.Mode.LINT).load(spec);
        assertFalse(errors(result).isEmpty(), "the loader accepts " + spec);
    }

    @Test
    void thirdPartyConnectorGetsSchemaEntriesAndLintForFree() throws IOException {
        ConnectorRegistry registry = TestConnectors.withAcme();
        String schemaJson = new SpecSchemaGenerator(registry).render();
        JsonNode schema = JsonMapper.builder().build().readTree(schemaJson);
        JsonNode connection = schema.at("/$defs/connection-acme/properties");
        assertTrue(connection.has("endpoint") && connection.has("api-token") && connection.has("labels"),
                connection.toString());
        assertTrue(schema.at("/$defs/connection-acme/properties/api-token/description").asString()
                .contains("Secret"));
        assertEquals("integer", schema.at("/$defs/source-acme/properties/shard-count/anyOf/0/type").asString());
        assertEquals("shard-count", schema.at("/$defs/source-acme/required/1").asString());
        assertTrue(schema.at("/$defs/connection/properties/type/enum").toString().contains("\"acme\""));

        SchemaValidation validation = new SchemaValidation(schemaJson);
        Path good = Path.of("src/test/resources/schema/acme/good.yaml");
        assertEquals(List.of(), validation.errors(good));
        LoadResult loaded = new SpecLoader(registry, Environment.of(Map.of("ACME_TOKEN", "tok-123456")),
                SpecLoader.Mode.RUN).load(good);
        assertEquals(List.of(), errors(loaded));
        assertEquals(List.of("src/test/resources/schema/acme/good.yaml:11:55: warning[ACME1] more than 64 shards is "
                + "slow (in 'source' of stream 'events')"), loaded.diagnostics().stream().map(Diagnostic::headline)
                .toList());
        assertTrue(loaded.spec().orElseThrow().secrets().contains("tok-123456"));

        Path bad = Path.of("src/test/resources/schema/acme/bad.yaml");
        assertFalse(validation.errors(bad).isEmpty());
        LoadResult rejected = new SpecLoader(registry, Environment.of(Map.of()), SpecLoader.Mode.LINT).load(bad);
        assertEquals(List.of(
                "src/test/resources/schema/acme/bad.yaml:5:3: error[SPEC008] missing required key 'endpoint' in "
                        + "connection 'warehouse'",
                "src/test/resources/schema/acme/bad.yaml:5:28: error[SPEC012] unknown key 'endpont' in connection "
                        + "'warehouse'",
                "src/test/resources/schema/acme/bad.yaml:11:5: error[SPEC008] missing required key 'shard-count' "
                        + "in 'source' of stream 'events'",
                "src/test/resources/schema/acme/bad.yaml:11:55: error[SPEC012] unknown key 'shard-cont' in "
                        + "'source' of stream 'events'",
                "src/test/resources/schema/acme/bad.yaml:11:76: error[SPEC007] invalid value 'quick' for 'mode' in "
                        + "'source' of stream 'events'; expected one of: fast, safe"),
                rejected.diagnostics().stream().map(Diagnostic::headline).toList());
        assertEquals("did you mean 'shard-count'?", rejected.diagnostics().get(3).fix().orElseThrow());
    }

    private static List<String> errors(LoadResult result) {
        return result.diagnostics().stream().filter(d -> d.severity() == Severity.ERROR)
                .map(Diagnostic::headline).toList();
    }
}
