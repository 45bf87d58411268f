package io.sluice.app.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code sluice completion bash|zsh|fish}: a completion script of every command and option, made from the command
 * line's own model, so it never lags behind a new option. Bash and zsh share picocli's script (zsh through
 * {@code bashcompinit}); fish gets {@code complete} lines.
 */
@Command(name = "completion", description = {"Print a shell completion script.",
        "bash and zsh: source <(sluice completion bash) in ~/.bashrc or ~/.zshrc; "
                + "fish: sluice completion fish > ~/.config/fish/completions/sluice.fish"})
final class CompletionCommand implements Runnable {
    enum Shell { BASH, ZSH, FISH }

    @CommandLine.Spec
    CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "SHELL", description = "bash, zsh or fish.")
    Shell shell;

    @Override
    public void run() {
        CommandLine root = spec.root().commandLine();
        String script = shell == Shell.FISH ? fish(root) : AutoComplete.bash(root.getCommandName(), root);
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
    }

    /** One {@code complete} line per command and per option of each, the option's first description line as help. */
    static String fish(CommandLine root) {
        String name = root.getCommandName();
        List<String> lines = new ArrayList<>();
        lines.add("# " + name + " completion for fish: " + name + " completion fish > ~/.config/fish/completions/"
                + name + ".fish");
        lines.add("complete -c " + name + " -f");
        for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
            if (sub.getValue().getCommandSpec().usageMessage().hidden()) {
                continue;
            }
            lines.add("complete -c " + name + " -n __fish_use_subcommand -a " + sub.getKey() + " -d "
                    + quoted(first(sub.getValue().getCommandSpec().usageMessage().description())));
        }
        for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
            if (sub.getValue().getCommandSpec().usageMessage().hidden()) {
                continue;
            }
            // by name: picocli's order follows reflection, which differs between builds of the same source
            for (OptionSpec option : sub.getValue().getCommandSpec().options().stream().sorted(Comparator.comparing(OptionSpec::longestName)).toList()) {
                if (option.hidden() || !option.longestName().startsWith("--")) {
                    continue;
                }
                lines.add("complete -c " + name + " -n " + quoted("__fish_seen_subcommand_from " + sub.getKey())
                        + " -l " + option.longestName().substring(2) + (option.arity().max() > 0 ? " -r" : "")
                        + " -d " + quoted(first(option.description())));
            }
        }
        return String.join("\n", lines) + "\n";
    }

    private static String first(String[] description) {
        return description.length == 0 ? "" : description[0];
    }

    /** A fish single-quoted word: only the backslash and the quote are escaped there. */
    private static String quoted(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
