package io.sluice.core.lint;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Position;
import io.sluice.core.diag.Severity;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.SpecCode;
import io.sluice.core.spec.TestConnectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinterTest {
    private final Linter linter = new Linter(TestConnectors.registry(), Environment.of(Map.of()));

    @Test
    void directoriesRecurseIntoYamlFilesSortedAndExitCodesFollowErrors(@TempDir Path dir) throws IOException {
        String good = Files.readString(Path.of("src/test/resources/lint/good/minimal.yaml"));
        Files.createDirectories(dir.resolve("b/nested"));
        Files.writeString(dir.resolve("b/nested/z.yml"), good);
        Files.writeString(dir.resolve("a.yaml"), good);
        Files.writeString(dir.resolve("notes.txt"), "not a spec");
        LintReport clean = linter.lint(List.of(dir));
        assertEquals(List.of(dir.resolve("a.yaml").toString(), dir.resolve("b/nested/z.yml").toString()),
                clean.files());
        assertEquals(0, clean.exitCode());
        assertEquals("2 files checked: no problems\n", LintFormat.TEXT.render(clean));

        Files.writeString(dir.resolve("b/bad.yaml"), good.replace("name: minimal", "name: minimal\nnmae: x"));
        LintReport dirty = linter.lint(List.of(dir));
        assertEquals(3, dirty.exitCode());
        assertEquals(1, dirty.errors());
    }

    @Test
    void foldersSkipOtherYamlButANamedFileIsAlwaysLinted(@TempDir Path dir) throws IOException {
        String good = Files.readString(Path.of("src/test/resources/lint/good/minimal.yaml"));
        Files.writeString(dir.resolve("spec.yaml"), good);
        Files.writeString(dir.resolve("workflow.yml"), "name: lint\non: [pull_request]\njobs: {}\n");
        Files.writeString(dir.resolve("compose.yaml"), "version: \"3\"\nservices: {}\n");
        LintReport folder = linter.lint(List.of(dir));
        assertEquals(List.of(dir.resolve("spec.yaml").toString()), folder.files());
        assertEquals(0, folder.exitCode());

        LintReport named = linter.lint(List.of(dir.resolve("workflow.yml")));
        assertEquals(3, named.exitCode(), "a file named on the command line is linted even if it is no spec");
    }

    @Test
    void warningsAndNotesAloneExitZero() {
        LintReport report = linter.lint(List.of(Path.of("src/test/resources/lint/bad/unset-variable.yaml")));
        assertEquals(0, report.errors());
        assertTrue(report.count(Severity.NOTE) > 0);
        assertEquals(0, report.exitCode());
    }

    @Test
    void relativePathsStayRelative() {
        LintReport report = linter.lint(List.of(Path.of("src/test/resources/lint/bad/unknown-key.yaml")));
        assertTrue(report.diagnostics().stream()
                .allMatch(d -> d.position().file().equals("src/test/resources/lint/bad/unknown-key.yaml")));
    }

    @Test
    void githubFormatEscapesWorkflowCommandText() {
        Diagnostic d = new Diagnostic(Severity.WARNING, "SPEC018", new Position("dir,x/a:b.yaml", 3, 4),
                "100% literal", Optional.of("line one\nline two"));
        String out = LintFormat.GITHUB.render(new LintReport(List.of("dir,x/a:b.yaml"), List.of(d)));
        assertEquals("::warning file=dir%2Cx/a%3Ab.yaml,line=3,col=4,title=SPEC018::100%25 literal%0Afix: line one"
                + "%0Aline two\n", out);
    }

    @Test
    void formatsParseByName() {
        assertEquals(LintFormat.SARIF, LintFormat.parse("sarif"));
        assertEquals("github", LintFormat.GITHUB.spelling());
        assertThrows(IllegalArgumentException.class, () -> LintFormat.parse("xml"));
    }

    @Test
    void everyCodeIsDocumented() throws IOException {
        String docs = Files.readString(Path.of("../../docs/spec.md"), StandardCharsets.UTF_8);
        List<String> missing = Arrays.stream(SpecCode.values()).map(Enum::name)
                .filter(code -> !docs.contains("| " + code + " |")).toList();
        assertEquals(List.of(), missing, "codes missing from the table in docs/spec.md");
    }
}
