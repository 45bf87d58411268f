package io.sluice.app.cli;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A command that names one subcommand models only that one (picocli's reflection over every command's options was a
 * tenth of each plan's start); everything that lists or completes commands still sees them all.
 */
class CommandTreeTest {
    @Test
    void aNamedCommandIsModelledAloneAndAnythingElseGetsTheWholeTree() {
        CommandLine.IFactory factory = CommandLine.defaultFactory();
        assertEquals(Set.of("plan"), SluiceCommand.commandLine(factory, new String[]{"plan", "spec.yaml"})
                .getSubcommands().keySet());
        assertEquals(Set.of("run"), SluiceCommand.commandLine(factory, new String[]{"--help", "run"})
                .getSubcommands().keySet());
        for (String[] args : List.of(new String[]{}, new String[]{"--help"}, new String[]{"pla"},
                new String[]{"help", "plan"}, new String[]{"completion", "bash"}, new String[]{"man-pages", "x"})) {
            assertEquals(List.copyOf(SluiceCommand.COMMANDS.keySet()), List.copyOf(SluiceCommand.commandLine(factory,
                    args).getSubcommands().keySet()), String.join(" ", args));
        }
    }

    @Test
    void aMistypedCommandIsStillAnsweredWithTheCommandsItMayMean() {
        CliRun typo = CliRun.of("pla");
        assertEquals(2, typo.exitCode(), typo.all());
        assertTrue(typo.err().contains("Did you mean: sluice plan"), typo.err());
        CliRun help = CliRun.of("help", "lint");
        assertEquals(0, help.exitCode(), help.all());
        assertTrue(help.out().startsWith("Usage: sluice lint"), help.out());
    }
}
