package io.sluice.app.logging;

import io.sluice.app.CliRun;
import io.sluice.app.report.TestPipeline;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every output of a run — stdout, stderr, the summary, the JUnit report and the HTML report — for a succeeding and a
 * failing run in both log formats, searched for values that came from {@code ${file:...}}: the password and the
 * target table's name. PostgreSQL names the table in its error, so the failing run would leak it without the
 * redactor.
 */
class SecretsNeverLeakTest {
    private static TestPipeline pipeline;

    @TempDir
    Path dir;

    @BeforeAll
    static void databases() throws Exception {
        pipeline = TestPipeline.create("secrets");
    }

    @ParameterizedTest(name = "fits={0}, log-format={1}")
    @CsvSource({"true, text", "true, json", "false, text", "false, json"})
    void noOutputShowsASecret(boolean fits, String logFormat) throws Exception {
        Path spec = pipeline.specWithSecretTable(dir, "secrets-" + fits + "-" + logFormat, fits);
        Path summary = dir.resolve("summary.json");
        Path junit = dir.resolve("junit.xml");
        Path report = dir.resolve("report.html");
        CliRun run = CliRun.of("run", spec.toString(), "--log-format", logFormat, "--summary-json", summary.toString(),
                "--junit-xml", junit.toString(), "--report", report.toString(), "--progress-interval", "1");

        assertEquals(fits ? 0 : 1, run.exitCode(), run.all());
        String everything = String.join("\n---\n", run.out(), run.err(), Files.readString(summary),
                Files.readString(junit), Files.readString(report));
        for (String secret : pipeline.secrets()) {
            assertFalse(everything.contains(secret), "'" + secret + "' leaked:\n" + everything);
        }
        if (!fits) {
            // PostgreSQL's message named the table: it is there, masked.
            assertTrue(Files.readString(summary).contains("\\\"***\\\""), Files.readString(summary));
            assertTrue(Files.readString(junit).contains("***"), Files.readString(junit));
        } else {
            assertEquals(TestPipeline.ROWS, pipeline.secretTableCount());
        }
    }
}
