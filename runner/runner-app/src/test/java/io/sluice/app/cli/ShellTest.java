package io.sluice.app.cli;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a shell user meets: completion scripts that a real bash sources cleanly and completes from, the global options'
 * defaults from SLUICE_* variables (never an option that changes what a run does), every exit code in --help.
 */
class ShellTest {
    @TempDir
    Path dir;

    @Test
    void bashSourcesTheScriptCleanlyAndCompletesCommandsAndOptions() throws Exception {
        CliRun script = CliRun.of("completion", "bash");
        assertEquals(0, script.exitCode(), script.all());
        Path file = dir.resolve("sluice.bash");
        Files.writeString(file, script.out());

        assertEquals(List.of("run"), complete(file, "sluice", "ru"));
        List<String> r = complete(file, "sluice", "r");
        assertTrue(r.contains("run") && r.contains("rejects"), r.toString());
        assertTrue(complete(file, "sluice", "run", "--res").contains("--resume"));
        assertTrue(complete(file, "sluice", "compare", "--max").contains("--max-differences"));

        // zsh sources the same script through bashcompinit
        assertEquals(script.out(), CliRun.of("completion", "zsh").out());
    }

    @Test
    void fishGetsACompleteLinePerCommandAndOption() {
        CliRun fish = CliRun.of("completion", "fish");
        assertEquals(0, fish.exitCode(), fish.all());
        assertTrue(fish.out().contains("complete -c sluice -n __fish_use_subcommand -a run -d 'Plan and run a spec"),
                fish.out());
        assertTrue(fish.out().contains("complete -c sluice -n '__fish_seen_subcommand_from run' -l resume -r"),
                fish.out());
        // a quote inside a description is escaped, not ending the word
        assertTrue(fish.out().contains("stream\\'s target"), fish.out());
        assertFalse(fish.out().contains("man-pages"), "a build step's hidden command is not offered");
        CliRun unknown = CliRun.of("completion", "tcsh");
        assertEquals(2, unknown.exitCode(), unknown.all());
    }

    @Test
    void theGlobalOptionsTakeTheirDefaultsFromSluiceVariablesAndAGivenOptionWins() {
        CommandLine line = SluiceCommand.commandLine(CommandLine.defaultFactory());
        line.setDefaultValueProvider(new EnvironmentDefaults(Map.of("SLUICE_PROGRESS_INTERVAL", "7",
                "SLUICE_STATE_DIR", dir.toString(), "SLUICE_VERBOSE", "true", "SLUICE_FORCE", "true",
                "SLUICE_RESUME", "r1")));
        CommandLine.ParseResult parsed = line.parseArgs("run", "x.yaml");
        RunCommand run = parsed.subcommand().commandSpec().commandLine().getCommand();
        assertEquals(7, run.progressSeconds);
        assertEquals(dir.toAbsolutePath(), run.state.resolve());
        assertTrue(run.outputs.verbose);
        // what a run does never comes from a variable left set in a shell
        assertFalse(run.force);
        assertEquals(null, run.resume);

        CommandLine given = SluiceCommand.commandLine(CommandLine.defaultFactory());
        given.setDefaultValueProvider(new EnvironmentDefaults(Map.of("SLUICE_PROGRESS_INTERVAL", "7")));
        RunCommand explicit = given.parseArgs("run", "x.yaml", "--progress-interval", "2").subcommand().commandSpec()
                .commandLine().getCommand();
        assertEquals(2, explicit.progressSeconds);
        assertEquals("SLUICE_METRICS_PUSH_INTERVAL", EnvironmentDefaults.variable("--metrics-push-interval"));
    }

    @Test
    void helpListsEveryExitCodeAndTheVariables() {
        CliRun help = CliRun.of("--help");
        for (int code : new int[] {ExitCodes.OK, ExitCodes.RUN_FAILED, ExitCodes.USAGE, ExitCodes.INVALID_SPEC,
                ExitCodes.PREFLIGHT, ExitCodes.VERIFICATION, ExitCodes.OUTPUT_NOT_WRITTEN, ExitCodes.INTERRUPTED}) {
            assertTrue(help.out().contains("\n  " + code + " "), code + " missing:\n" + help.out());
        }
        for (String option : EnvironmentDefaults.OPTIONS) {
            assertTrue(help.out().contains(EnvironmentDefaults.variable(option)), option + ":\n" + help.out());
        }
        assertTrue(CliRun.of("run", "--help").out().contains("SLUICE_LOG_FORMAT"));
    }

    @Test
    void manPagesForTheRootAndEachCommand() throws Exception {
        CliRun pages = CliRun.of("man-pages", dir.toString());
        assertEquals(0, pages.exitCode(), pages.all());
        String run = Files.readString(dir.resolve("sluice-run.1"));
        assertTrue(run.startsWith(".TH SLUICE-RUN 1") && run.contains(".B \\-\\-resume") && run.contains("130"), run);
        assertTrue(Files.readString(dir.resolve("sluice.1")).contains(".BR sluice\\-compare (1)"));
        assertFalse(Files.exists(dir.resolve("sluice-man-pages.1")));
    }

    /** What bash's completion offers for the words typed so far (the last one being completed). */
    private static List<String> complete(Path script, String... words) throws Exception {
        String line = String.join(" ", words);
        // compopt only works inside a completion bash runs itself: a no-op here, where the function is called
        String command = "source '" + script + "' || exit 9; compopt() { :; }; COMP_WORDS=(" + line + "); COMP_CWORD="
                + (words.length - 1) + "; COMP_LINE='" + line + "'; COMP_POINT=${#COMP_LINE}; "
                + "_complete_sluice sluice '" + words[words.length - 1] + "' '" + words[words.length - 2] + "'; "
                + "printf '%s\\n' \"${COMPREPLY[@]}\"";
        Process bash = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", command).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(bash.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, bash.exitValue(), err);
        assertEquals("", err, "the script sources and completes without a word on stderr");
        Process source = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", "source '" + script + "'")
                .redirectErrorStream(true).start();
        String sourced = new String(source.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(source.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, source.exitValue(), sourced);
        assertEquals("", sourced, "sourcing prints nothing");
        return out.lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
