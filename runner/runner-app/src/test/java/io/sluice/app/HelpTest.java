package io.sluice.app;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command answers --help and --version without needing its arguments, and exits 0. */
class HelpTest {
    @ParameterizedTest
    @ValueSource(strings = {"run", "plan", "lint", "status", "connectors", "version", "serve"})
    void everyCommandAnswersHelp(String command) {
        CliRun help = CliRun.of(command, "--help");
        assertEquals(0, help.exitCode(), help.all());
        assertTrue(help.out().startsWith("Usage: sluice " + command), help.out());

        CliRun version = CliRun.of(command, "--version");
        assertEquals(0, version.exitCode(), version.all());
        assertTrue(version.out().startsWith("sluice "), version.out());
    }
}
