package io.sluice.core.spec;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
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

/** {@code batch-size} against what the source's connector declares it follows ({@code SourceCapabilities}). */
class RowsPerPartitionTest {
    private static final String HEAD = """
            version: 1
            name: t
            connections:
              pg: { type: postgres, url: "jdbc:postgresql://h/d" }
              lake: { type: duckdb }
              warehouse: { type: acme, endpoint: "https://acme" }
            """;

    @TempDir
    Path dir;

    private LoadResult load(String streams) throws IOException {
        Path file = dir.resolve("spec.yaml");
        Files.writeString(file, HEAD + streams);
        return new SpecLoader(TestConnectors.withAcme(), Environment.of(Map.of()), SpecLoader.Mode.RUN).load(file);
    }

    /** What the loader says, but the unused connections of the shared header. */
    private static List<Diagnostic> findings(LoadResult result) {
        return result.diagnostics().stream().filter(d -> !d.code().equals("SPEC023")).toList();
    }

    private static String stream(String source, String settings) {
        return """
                  - name: s
                    source: %s
                    target: { connection: pg, table: b }
                %s""".formatted(source, settings.indent(4));
    }

    @Test
    void aMethodThatSplitsByRowsUsesItAndSaysNothing() throws IOException {
        LoadResult result = load("streams:\n" + stream("{ connection: pg, table: a }",
                "distribution: { method: range, key: id }\nbatch-size: 5000"));
        assertEquals(List.of(), findings(result));
        StreamSpec s = result.spec().orElseThrow().streams().getFirst();
        assertEquals(5000, s.rowsPerPartition());
        assertTrue(s.rowsPerPartitionPlanned());
    }

    @Test
    void aBatchSizeTheMethodIgnoresIsAWarningAtItsLine() throws IOException {
        LoadResult result = load("streams:\n" + stream("{ connection: pg, table: a }",
                "distribution: { method: modulo, key: id }\nbatch-size: 5000"));
        assertEquals(1, findings(result).size(), findings(result).toString());
        Diagnostic warning = findings(result).getFirst();
        assertEquals(Severity.WARNING, warning.severity());
        assertEquals("SPEC026", warning.code());
        assertEquals(12, warning.position().line());
        assertEquals("'batch-size' in stream 's' changes nothing: the postgres source does not split distribution "
                + "method 'modulo' by rows per partition", warning.message());
        assertEquals("remove 'batch-size', or use a method that splits by it: ctid, range, ntile",
                warning.fix().orElseThrow());
        assertFalse(result.spec().orElseThrow().streams().getFirst().rowsPerPartitionPlanned());
    }

    @Test
    void aSourceNoMethodOfWhichSplitsByRowsSaysSo() throws IOException {
        LoadResult result = load("streams:\n" + stream("{ connection: lake, query: select 1 }", "batch-size: 10"));
        assertEquals(List.of("SPEC026"), findings(result).stream().map(Diagnostic::code).toList());
        assertEquals("remove 'batch-size'; no method of this source uses it",
                findings(result).getFirst().fix().orElseThrow());
    }

    @Test
    void aBatchSizeFromDefaultsIsNotBlamedOnEachStream() throws IOException {
        LoadResult result = load("defaults: { batch-size: 10 }\nstreams:\n"
                + stream("{ connection: pg, table: a }", "distribution: { method: none }"));
        assertEquals(List.of(), findings(result));
        StreamSpec s = result.spec().orElseThrow().streams().getFirst();
        assertEquals(10, s.rowsPerPartition());
        assertFalse(s.rowsPerPartitionPlanned());
    }
}
