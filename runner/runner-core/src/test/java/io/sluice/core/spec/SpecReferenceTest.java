package io.sluice.core.spec;

import io.sluice.core.connector.ConnectorRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The spec's keys are declared once ({@link SpecReference}): docs/spec.md's key tables are generated from the
 * declarations, and the JSON Schema has exactly the declared keys where the loader takes them. After changing a
 * declaration, regenerate the docs with
 * {@code ./mvnw -pl runner/runner-core test -Dtest=SpecReferenceTest -Dsluice.docs.update=true}.
 */
class SpecReferenceTest {
    private static final Path SPEC_DOC = Path.of("../../docs/spec.md");
    private static final JsonNode SCHEMA = new SpecSchemaGenerator(ConnectorRegistry.fromClassPath()).schema();

    @Test
    void docsKeyTablesAreTheDeclarations() throws IOException {
        String doc = Files.readString(SPEC_DOC, StandardCharsets.UTF_8);
        String generated = SpecReference.updated(doc);
        if (Boolean.getBoolean("sluice.docs.update")) {
            Files.writeString(SPEC_DOC, generated, StandardCharsets.UTF_8);
        }
        assertEquals(doc, generated, SPEC_DOC + "'s key tables differ from SpecReference: regenerate them with "
                + "-Dsluice.docs.update=true (see this test's javadoc)");
    }

    @Test
    void theSchemaHasExactlyTheDeclaredKeys() {
        assertEquals(names(SpecReference.TOP, SpecKey.Scope.TOP), keys(SCHEMA.get("properties")), "top-level keys");
        assertEquals(names(SpecReference.STREAM, SpecKey.Scope.STREAM, SpecKey.Scope.SETTING),
                keys(SCHEMA.get("$defs").get("stream").get("properties")), "stream keys");
        assertEquals(names(SpecReference.STREAM, SpecKey.Scope.SETTING),
                keys(SCHEMA.get("$defs").get("defaults").get("properties")), "keys under defaults:");
    }

    @Test
    void everyKeyIsDescribedFromItsDeclaration() {
        for (SpecKey key : SpecReference.TOP) {
            assertEquals(key.plainMeaning(), SCHEMA.get("properties").get(key.name()).get("description").asString(),
                    key.name());
        }
        for (SpecKey key : SpecReference.STREAM) {
            assertFalse(key.meaning().isBlank(), key.name());
            assertEquals(key.plainMeaning(), SCHEMA.get("$defs").get("stream").get("properties").get(key.name())
                    .get("description").asString(), key.name());
        }
    }

    @Test
    void plainMeaningDropsMarkdown() {
        SpecKey key = new SpecKey("k", SpecKey.Scope.STREAM, "", "", "see [postgres.md](postgres.md#target), `a` | b");
        assertEquals("see postgres.md, a | b", key.plainMeaning());
    }

    private static Set<String> names(List<SpecKey> keys, SpecKey.Scope... scopes) {
        return new TreeSet<>(SpecReference.names(keys, scopes));
    }

    private static Set<String> keys(JsonNode properties) {
        Set<String> names = new TreeSet<>();
        properties.propertyNames().forEach(names::add);
        return names;
    }
}
