package io.sluice.app.lint;

import io.sluice.connector.duckdb.DuckDbConnectorFactory;
import io.sluice.connector.postgres.PostgresConnectorFactory;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.lint.LintFormat;
import io.sluice.core.lint.LintReport;
import io.sluice.core.lint.Linter;
import io.sluice.core.spec.Environment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Bad specs with their exact expected lint output: the message text is API. Each file under lint/bad shows one class
 * of problem; many-problems.yaml shows them together in all four formats. The connectors are the real ones shipped
 * (postgres, duckdb), so the output is what a user sees, and a rule the core and a connector both checked
 * would show twice. After an intended change of wording, regenerate with
 * {@code ./mvnw -pl runner/runner-app -am verify -Dtest=GoldenLintTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsluice.golden.update=true} and review the diff.
 */
class GoldenLintTest {
    static final Path BAD = Path.of("src/test/resources/lint/bad");
    private static final boolean UPDATE = Boolean.getBoolean("sluice.golden.update");

    /** The shipped connectors only: the test class path also holds test connectors (faulty-postgres, ...). */
    private final Linter linter = new Linter(new ConnectorRegistry(List.of(new PostgresConnectorFactory(),
            new DuckDbConnectorFactory())), Environment.of(Map.of()));

    static Stream<Path> badSpecs() throws IOException {
        try (Stream<Path> files = Files.list(BAD)) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("badSpecs")
    void textOutputMatchesGolden(Path spec) throws IOException {
        LintReport report = linter.lint(List.of(spec));
        assertGolden(spec, ".txt", LintFormat.TEXT.render(report));
    }

    @Test
    void everyFormatOfTheManyProblemsSpecMatchesGolden() throws IOException {
        Path spec = BAD.resolve("many-problems.yaml");
        LintReport report = linter.lint(List.of(spec));
        assertGolden(spec, ".json", LintFormat.JSON.render(report));
        assertGolden(spec, ".github", LintFormat.GITHUB.render(report));
        assertGolden(spec, ".sarif", LintFormat.SARIF.render(report));
        assertEquals(3, report.exitCode());
    }

    private static void assertGolden(Path spec, String extension, String actual) throws IOException {
        Path golden = spec.resolveSibling(spec.getFileName().toString().replace(".yaml", extension));
        if (UPDATE) {
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        String expected = Files.exists(golden) ? Files.readString(golden, StandardCharsets.UTF_8) : "(missing "
                + golden + "; run with -Dsluice.golden.update=true)";
        assertEquals(expected, actual, "lint output of " + spec + " differs from " + golden);
    }
}
