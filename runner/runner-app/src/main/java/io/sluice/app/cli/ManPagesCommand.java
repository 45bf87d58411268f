package io.sluice.app.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code sluice man-pages DIR}: troff man pages, {@code sluice.1} and one {@code sluice-COMMAND.1} per command, made from
 * the command line's own model as the archive is staged (hidden: a build step, not a user's command).
 */
@Command(name = "man-pages", hidden = true, description = "Write the man pages (section 1) into DIR.")
final class ManPagesCommand implements Runnable {
    @CommandLine.Spec
    CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "DIR")
    Path directory;

    @Override
    public void run() {
        CommandLine root = spec.root().commandLine();
        try {
            Files.createDirectories(directory);
            write(root.getCommandSpec(), root.getCommandName(), root);
            for (CommandLine sub : root.getSubcommands().values()) {
                if (!sub.getCommandSpec().usageMessage().hidden()) {
                    write(sub.getCommandSpec(), root.getCommandName() + "-" + sub.getCommandName(), root);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the man pages into " + directory, e);
        }
    }

    private void write(CommandSpec command, String page, CommandLine root) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(".TH " + page.toUpperCase(Locale.ROOT) + " 1 \"\" \"sluice\" \"Sluice Manual\"");
        lines.add(".SH NAME");
        lines.add(escape(page) + " \\- " + escape(first(command.usageMessage().description())));
        lines.add(".SH SYNOPSIS");
        lines.add(".nf");
        lines.add(escape(new CommandLine.Help(command, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .synopsis(0).strip()));
        lines.add(".fi");
        lines.add(".SH DESCRIPTION");
        for (String paragraph : command.usageMessage().description()) {
            lines.add(escape(paragraph));
            lines.add(".PP");
        }
        if (!command.positionalParameters().isEmpty()) {
            lines.add(".SH ARGUMENTS");
            for (PositionalParamSpec parameter : command.positionalParameters()) {
                lines.add(".TP");
                lines.add(".I " + escape(parameter.paramLabel()));
                lines.add(escape(String.join(" ", parameter.description())));
            }
        }
        lines.add(".SH OPTIONS");
        // by name: picocli's order follows reflection, which differs between builds of the same source
        for (OptionSpec option : command.options().stream().sorted(Comparator.comparing(OptionSpec::longestName)).toList()) {
            if (option.hidden()) {
                continue;
            }
            lines.add(".TP");
            lines.add(".B " + escape(String.join(", ", option.names())) + (option.arity().max() > 0
                    ? " \\fI" + escape(option.paramLabel()) + "\\fR" : ""));
            lines.add(escape(String.join(" ", option.description()).replace("${DEFAULT-VALUE}",
                    String.valueOf(option.defaultValue()))));
        }
        if (command == root.getCommandSpec()) {
            lines.add(".SH COMMANDS");
            for (CommandLine sub : root.getSubcommands().values()) {
                if (!sub.getCommandSpec().usageMessage().hidden()) {
                    lines.add(".TP");
                    lines.add(".BR " + escape(page + "-" + sub.getCommandName()) + " (1)");
                    lines.add(escape(first(sub.getCommandSpec().usageMessage().description())));
                }
            }
        }
        // the root's footer: exit codes and environment
        lines.add(".SH EXIT STATUS AND ENVIRONMENT");
        lines.add(".nf");
        for (String line : root.getCommandSpec().usageMessage().footer()) {
            lines.add(escape(line));
        }
        lines.add(".fi");
        if (command != root.getCommandSpec()) {
            lines.add(".SH SEE ALSO");
            lines.add(".BR " + root.getCommandName() + " (1)");
        }
        Files.writeString(directory.resolve(page + ".1"), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    private static String first(String[] description) {
        return description.length == 0 ? "" : description[0];
    }

    /** Backslashes doubled, and a line that would start with a dot or a quote (a request) escaped. */
    private static String escape(String text) {
        String escaped = text.replace("\\", "\\e").replace("-", "\\-");
        return escaped.startsWith(".") || escaped.startsWith("'") ? "\\&" + escaped : escaped;
    }
}
