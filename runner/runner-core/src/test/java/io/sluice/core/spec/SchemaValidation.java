package io.sluice.core.spec;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.serialization.NodeReader;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Validates spec files against a generated schema with the same validator an editor-side tool would use. */
final class SchemaValidation {
    private final NodeReader reader = NodeReader.builder().locationAware().build();
    private final Schema schema;

    SchemaValidation(String schemaJson) {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.nodeReader(reader));
        this.schema = registry.getSchema(schemaJson, InputFormat.JSON);
    }

    /** The validator's messages; empty when the file is valid. */
    List<String> errors(Path spec) throws IOException {
        JsonNode node = reader.readTree(Files.readString(spec, StandardCharsets.UTF_8), InputFormat.YAML);
        return schema.validate(node).stream()
                .map(e -> e.getInstanceLocation() + " [" + e.getKeyword() + "] " + e.getMessage())
                .toList();
    }
}
