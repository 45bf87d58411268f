package io.sluice.core.spec;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.Options;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.write.LoadMode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpecLoaderTest {
    @TempDir
    Path dir;

    private static final String CONNECTIONS = """
            version: 1
            name: t
            connections:
              src: { type: postgres, url: "%s", user: "${USER_NAME:-loader}", password: "${PW}" }
              dst: { type: postgres, url: "jdbc:postgresql://h/d", password: "${file:secrets/pw.txt}" }
            """;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    private static LoadResult load(Path file, SpecLoader.Mode mode, Map<String, String> env) {
        return new SpecLoader(TestConnectors.registry(), Environment.of(env), mode).load(file);
    }

    private String spec(String url, String streams) {
        return CONNECTIONS.formatted(url) + streams;
    }

    private static final String ONE_STREAM = """
            streams:
              - name: s
                source: { connection: src, table: a }
                target: { connection: dst, table: b }
            """;

    @Test
    void interpolatesVariablesDefaultsAndFilesAndKeepsThemSecret() throws IOException {
        write("secrets/pw.txt", "  file-secret-value \n");
        Path file = write("spec.yaml", spec("jdbc:postgresql://u:url-pass-1@h/d", ONE_STREAM));
        LoadResult result = load(file, SpecLoader.Mode.RUN, Map.of("PW", "env-secret-value"));
        PipelineSpec spec = result.spec().orElseThrow(() -> new AssertionError(result.diagnostics()));
        Options src = spec.connection("src").options();
        assertEquals("loader", src.get(Option.string("user")));
        assertEquals("env-secret-value", src.get(Option.string("password")));
        assertEquals("file-secret-value", spec.connection("dst").options().get(Option.string("password")));
        assertEquals(Set.of("loader", "env-secret-value", "file-secret-value", "url-pass-1"), spec.secrets());
        assertFalse(spec.toString().contains("secret-value"), spec.toString());
        // The literal URL password is reported without being printed.
        assertEquals(List.of("spec.yaml:4:31: warning[SPEC018] literal password in the URL of 'url' in connection "
                + "'src'"), headlines(result).stream().map(h -> h.substring(h.indexOf("spec.yaml"))).toList());
        assertTrue(result.diagnostics().stream().noneMatch(d -> d.message().contains("url-pass-1")));
    }

    @Test
    void unsetVariableIsAnErrorWhenRunningAndANoteWhenLinting() throws IOException {
        write("secrets/pw.txt", "x");
        Path file = write("spec.yaml", spec("jdbc:postgresql://h/d", ONE_STREAM));
        LoadResult run = load(file, SpecLoader.Mode.RUN, Map.of());
        assertTrue(run.spec().isEmpty());
        Diagnostic error = run.diagnostics().getFirst();
        assertEquals(Severity.ERROR, error.severity());
        assertEquals("SPEC019", error.code());
        assertEquals("environment variable 'PW' is not set (used by 'connections.src.password')", error.message());

        LoadResult lint = load(file, SpecLoader.Mode.LINT, Map.of());
        assertTrue(lint.spec().isPresent(), () -> lint.diagnostics().toString());
        assertEquals(Severity.NOTE, lint.diagnostics().getFirst().severity());
        assertEquals("", lint.spec().get().connection("src").options().get(Option.string("password")));
    }

    @Test
    void missingSecretFileIsAnErrorWhenRunning() throws IOException {
        Path file = write("spec.yaml", spec("jdbc:postgresql://h/d", ONE_STREAM));
        LoadResult run = load(file, SpecLoader.Mode.RUN, Map.of("PW", "p"));
        assertEquals(List.of("SPEC021"), run.diagnostics().stream().map(Diagnostic::code).toList());
        assertTrue(run.diagnostics().getFirst().message().startsWith("cannot read 'secrets/pw.txt'"));
    }

    @Test
    void interpolatedIntegersAndEscapesWork() throws IOException {
        write("secrets/pw.txt", "x");
        Path file = write("spec.yaml", spec("jdbc:postgresql://h/d", """
                streams:
                  - name: s
                    source: { connection: src, query: "select '$${not_a_var}', $$x$$" }
                    target: { connection: dst, table: b }
                    degree: ${DEGREE}
                    batch-size: ${BATCH:-1000}
                """));
        PipelineSpec spec = load(file, SpecLoader.Mode.RUN, Map.of("PW", "p", "DEGREE", "-2")).spec().orElseThrow();
        StreamSpec stream = spec.streams().getFirst();
        assertEquals(-2, stream.degree());
        assertEquals(1000, stream.rowsPerPartition());
        assertEquals("select '${not_a_var}', $$x$$", stream.source().options().get(TestConnectors.QUERY));

        LoadResult bad = load(file, SpecLoader.Mode.RUN, Map.of("PW", "p", "DEGREE", "many"));
        assertEquals("'degree' in stream 's' must be an integer, but ${DEGREE} does not expand to one",
                bad.diagnostics().getFirst().message());
    }

    @Test
    void defaultsApplyAndRetryMergesKeyByKey() throws IOException {
        write("secrets/pw.txt", "x");
        Path file = write("spec.yaml", spec("jdbc:postgresql://h/d", """
                defaults:
                  degree: 4
                  load-mode: truncate
                  distribution: { method: modulo, key: id }
                  retry: { max-attempts: 9, initial-backoff: 250ms }
                streams:
                  - name: a
                    source: { connection: src, table: a }
                    target: { connection: dst, table: b }
                    retry: { max-backoff: 2m }
                  - name: b
                    source: { connection: src, table: a }
                    target: { connection: dst, table: c }
                    degree: 1
                    distribution: { method: none }
                    verify: checksum
                """));
        PipelineSpec spec = load(file, SpecLoader.Mode.RUN, Map.of("PW", "p")).spec().orElseThrow();
        StreamSpec a = spec.streams().get(0);
        StreamSpec b = spec.streams().get(1);
        assertEquals(4, a.degree());
        assertEquals(LoadMode.TRUNCATE, a.load().mode());
        assertEquals(DistributionMethod.MODULO, a.distribution().method());
        assertEquals(new RetrySpec(9, Duration.ofMillis(250), Duration.ofMinutes(2)), a.retry());
        assertEquals(1, b.degree());
        assertEquals(DistributionMethod.NONE, b.distribution().method());
        assertEquals(VerifyMode.CHECKSUM, b.verify());
        assertEquals(VerifyMode.NONE, a.verify());
        assertEquals(1_048_576L, a.rowsPerPartition());
        assertTrue(spec.ledger());
    }

    @Test
    void checksumIsSha256OfTheFileBytes() throws Exception {
        write("secrets/pw.txt", "x");
        String text = spec("jdbc:postgresql://h/d", ONE_STREAM) + "# trailing comment\n";
        Path file = write("spec.yaml", text);
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
        assertEquals(expected, load(file, SpecLoader.Mode.RUN, Map.of("PW", "p")).spec().orElseThrow().checksum());
    }

    @Test
    void ledgerAcceptsOnOffAndBooleans() throws IOException {
        write("secrets/pw.txt", "x");
        for (String value : List.of("off", "false", "'false'")) {
            Path file = write("spec.yaml", spec("jdbc:postgresql://h/d", ONE_STREAM) + "ledger: " + value + "\n");
            LoadResult result = load(file, SpecLoader.Mode.RUN, Map.of("PW", "p"));
            assertFalse(result.spec().orElseThrow().ledger(), value);
            assertEquals("SPEC022", result.diagnostics().getFirst().code());
        }
    }

    @Test
    void missingFileAndNonUtf8AreReported() throws IOException {
        LoadResult missing = load(Path.of("no/such/spec.yaml"), SpecLoader.Mode.LINT, Map.of());
        assertEquals(List.of("no/such/spec.yaml:1:1: error[SPEC001] cannot read the spec: no such file"),
                headlines(missing));
        Path binary = dir.resolve("bin.yaml");
        Files.write(binary, new byte[]{(byte) 0xff, (byte) 0xfe, 0});
        assertEquals("cannot read the spec: not UTF-8 text",
                load(binary, SpecLoader.Mode.LINT, Map.of()).diagnostics().getFirst().message());
    }

    @Test
    void yamlOddities() throws IOException {
        assertEquals(List.of("SPEC004"), codes(write("empty.yaml", "# nothing\n")));
        assertEquals(List.of("SPEC004"), codes(write("list.yaml", "- a\n- b\n")));
        List<String> twoDocs = codes(write("two.yaml", "version: 1\n---\nversion: 1\n"));
        assertTrue(twoDocs.contains("SPEC002"), twoDocs.toString());
        List<String> alias = codes(write("alias.yaml", "version: 1\nname: &n x\ndescription: *n\n"));
        assertTrue(alias.contains("SPEC002"), alias.toString());
        Path tab = write("tab.yaml", "version: 1\nconnections:\n\tdb: {}\n");
        assertEquals(List.of(tab + ":3:1: error[SPEC002] invalid YAML: found character '\\t(TAB)' that cannot "
                        + "start any token. (Do not use \\t(TAB) for indentation)"),
                headlines(load(tab, SpecLoader.Mode.LINT, Map.of())));
    }

    private List<String> codes(Path file) {
        return load(file, SpecLoader.Mode.LINT, Map.of()).diagnostics().stream().map(Diagnostic::code).toList();
    }

    private static List<String> headlines(LoadResult result) {
        return result.diagnostics().stream().map(Diagnostic::headline).toList();
    }
}
