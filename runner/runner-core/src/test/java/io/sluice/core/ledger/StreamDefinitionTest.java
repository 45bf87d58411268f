package io.sluice.core.ledger;

import io.sluice.toolkit.Redactor;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.SpecLoader;
import io.sluice.core.spec.StreamSpec;
import io.sluice.core.spec.TestConnectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A resume compares batch-size only where the source splits the stream's method by it. */
class StreamDefinitionTest {
    @TempDir
    Path dir;

    private String definition(String method, int rowsPerPartition) throws IOException {
        Path file = dir.resolve("spec.yaml");
        Files.writeString(file, """
                version: 1
                name: t
                connections:
                  pg: { type: postgres, url: "jdbc:postgresql://h/d" }
                streams:
                  - name: s
                    source: { connection: pg, table: a }
                    target: { connection: pg, table: b }
                    distribution: { method: %s, key: id }
                    batch-size: %d
                """.formatted(method, rowsPerPartition));
        StreamSpec stream = new SpecLoader(TestConnectors.registry(), Environment.of(Map.of()), SpecLoader.Mode.RUN)
                .load(file).spec().orElseThrow().streams().getFirst();
        return StreamDefinition.of(stream, Redactor.none());
    }

    @Test
    void batchSizeIsPartOfTheDefinitionWhereItSplitsTheSource() throws IOException {
        assertTrue(definition("range", 500).contains("\nbatch-size: 500\n"));
        assertEquals(List.of("- batch-size: 500", "+ batch-size: 700"),
                StreamDefinition.difference(definition("range", 500), definition("range", 700)));
    }

    @Test
    void batchSizeIsLeftOutWhereItChangesNothing() throws IOException {
        assertFalse(definition("modulo", 500).contains("batch-size"));
        assertEquals(List.of(), StreamDefinition.difference(definition("modulo", 500), definition("modulo", 700)));
    }

    @Test
    void aBatchSizeRecordedBeforeItWasLeftOutIsNoDifference() throws IOException {
        String current = definition("modulo", 700);
        String recorded = current.replace("\nload-mode:", "\nbatch-size: 500\nload-mode:");
        assertEquals(List.of(), StreamDefinition.difference(recorded, current));
        assertEquals(List.of("- distribution.method: range", "+ distribution.method: modulo"),
                StreamDefinition.difference(definition("range", 500), current));
    }
}
