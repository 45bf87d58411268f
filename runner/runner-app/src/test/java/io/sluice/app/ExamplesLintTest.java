package io.sluice.app;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every spec under examples/ lints clean as shipped: a reader copies them. */
class ExamplesLintTest {
    @Test
    void everyExampleSpecLintsWithoutErrorsOrWarnings() {
        CliRun lint = CliRun.of("lint", Path.of("../../examples").toString());
        assertEquals(0, lint.exitCode(), lint.all());
        assertTrue(lint.all().contains("0 errors, 0 warnings"), lint.all());
    }
}
