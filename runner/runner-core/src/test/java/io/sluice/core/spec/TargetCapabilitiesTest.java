package io.sluice.core.spec;

import io.sluice.core.diag.Diagnostic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A stream's load settings against what the target's connector declares it can do ({@code TargetCapabilities}). */
class TargetCapabilitiesTest {
    private static final String HEAD = """
            version: 1
            name: t
            connections:
              pg: { type: postgres, url: "jdbc:postgresql://h/d" }
              warehouse: { type: acme, endpoint: "https://acme" }
            streams:
              - name: s
                source: { connection: pg, table: a }
                target: { connection: %s }
            """;

    @TempDir
    Path dir;

    private List<Diagnostic> findings(String target, String settings) throws IOException {
        Path file = dir.resolve("spec.yaml");
        Files.writeString(file, HEAD.formatted(target) + settings.indent(4));
        return new SpecLoader(TestConnectors.withAcme(), Environment.of(Map.of()), SpecLoader.Mode.RUN).load(file)
                .diagnostics().stream().filter(d -> !d.code().equals("SPEC023")).toList();
    }

    @Test
    void aLoadModeTheTargetDoesNotDeclareIsRefusedWhereItIsWritten() throws IOException {
        List<Diagnostic> found = findings("warehouse", "load-mode: merge\nmerge-key: [id]");
        assertEquals(1, found.size(), found.toString());
        Diagnostic d = found.getFirst();
        assertEquals("SPEC029", d.code());
        assertEquals(10, d.position().line(), d.toString());
        assertTrue(d.message().contains("'load-mode: merge'") && d.message().contains("acme target"), d.message());
        assertEquals("use one of: append, truncate", d.fix().orElseThrow());
    }

    @Test
    void anIndexRebuildTheTargetCannotDoIsRefused() throws IOException {
        List<Diagnostic> found = findings("warehouse", "load-mode: truncate\nindexes: rebuild");
        assertEquals(List.of("SPEC029"), found.stream().map(Diagnostic::code).toList(), found.toString());
        assertEquals(11, found.getFirst().position().line());
    }

    @Test
    void whatTheTargetDeclaresPasses() throws IOException {
        assertEquals(List.of(), findings("warehouse", "load-mode: truncate"));
        assertEquals(List.of(), findings("pg, table: b", "load-mode: merge\nmerge-key: [id]\nindexes: rebuild"));
    }
}
