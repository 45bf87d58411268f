package io.sluice.app.cli;

import io.sluice.core.SluiceException;
import io.sluice.spi.error.CodedFailure;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code sluice}: the root command. Subcommands do the work. */
@Command(name = "sluice",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "Declarative bulk data mover into PostgreSQL: parallel binary COPY driven by YAML specs.",
        footerHeading = "%nExit codes:%n",
        footer = {
                "  0    success",
                "  1    run failed",
                "  2    usage error",
                "  3    invalid spec",
                "  4    preflight failure (cannot connect, authentication, missing table or column)",
                "  5    verification mismatch",
                "  6    done, but an output file (--summary-json, --junit-xml, --report) failed",
                "  130  interrupted",
                "",
                "Environment:",
                "  SLUICE_STATE_DIR, SLUICE_LOG_FORMAT, SLUICE_VERBOSE, SLUICE_METRICS_PUSH,",
                "  SLUICE_METRICS_PUSH_INTERVAL, SLUICE_PROGRESS_INTERVAL",
                "       defaults of those options (an option given wins)",
                "  SLUICE_HOME  the state folder without --state-dir or SLUICE_STATE_DIR"})
public final class SluiceCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The subcommands by name, in the order the help lists them. */
    static final Map<String, Class<?>> COMMANDS = commands();
    /** Commands that read the whole tree of commands (help listings, completion scripts, man pages). */
    private static final Set<String> WHOLE_TREE = Set.of("help", "completion", "man-pages");

    private static Map<String, Class<?>> commands() {
        Map<String, Class<?>> commands = new LinkedHashMap<>();
        for (Class<?> command : List.of(RunCommand.class, PlanCommand.class, CompareCommand.class, ServeCommand.class,
                StatusCommand.class, RejectsCommand.class, LintCommand.class, ConnectorsCommand.class,
                VersionCommand.class, CompletionCommand.class, ManPagesCommand.class, CommandLine.HelpCommand.class)) {
            commands.put(command.getAnnotation(Command.class).name(), command);
        }
        return Collections.unmodifiableMap(commands);
    }

    /** Every command: for help, completion and man pages, and for callers that dispatch more than once. */
    public static CommandLine commandLine(CommandLine.IFactory factory) {
        return commandLine(factory, COMMANDS.keySet());
    }

    /**
     * The commands {@code args} can reach: only the one they name when they name one, else all. Picocli models a
     * command by reflection on its options, which took about a tenth of a second for all twelve of every
     * {@code sluice plan} of 0.6 s; a command's own usage and errors need only its own model.
     */
    public static CommandLine commandLine(CommandLine.IFactory factory, String[] args) {
        String named = commandName(args);
        return COMMANDS.containsKey(named) && !WHOLE_TREE.contains(named)
                ? commandLine(factory, Set.of(named)) : commandLine(factory);
    }

    /** The subcommand's name: the first argument that is not an option; empty when there is none. */
    public static String commandName(String[] args) {
        for (String arg : args) {
            if (!arg.startsWith("-")) {
                return arg;
            }
        }
        return "";
    }

    private static CommandLine commandLine(CommandLine.IFactory factory, Set<String> names) {
        CommandLine line = new CommandLine(new SluiceCommand(), factory);
        COMMANDS.forEach((name, command) -> {
            if (names.contains(name)) {
                line.addSubcommand(name, command);
            }
        });
        line.setExitCodeExceptionMapper(SluiceCommand::exitCodeOf);
        line.setExecutionExceptionHandler(SluiceCommand::handle);
        line.setCaseInsensitiveEnumValuesAllowed(true);
        line.setDefaultValueProvider(new EnvironmentDefaults(System.getenv()));
        // Every command answers --help, not just the root (lint --help must not ask for a PATH).
        for (CommandLine sub : line.getSubcommands().values()) {
            if (sub.getCommandSpec().optionsMap().get("--help") == null) {
                sub.getCommandSpec().mixinStandardHelpOptions(true);
            }
            sub.getCommandSpec().versionProvider(new VersionCommand.Provider());
        }
        return line;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getErr());
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    /** The exit code of a command that ended in {@code error}: a coded failure's, 2 for usage, else 1. */
    static int exitCodeOf(Throwable error) {
        if (error instanceof CodedFailure e) {
            return e.exitCode();
        }
        if (error instanceof CommandLine.ParameterException) {
            return ExitCodes.USAGE;
        }
        return ExitCodes.RUN_FAILED;
    }

    private static int handle(Exception error, CommandLine line, CommandLine.ParseResult parseResult) {
        PrintWriter err = line.getErr();
        Terminal terminal = Terminal.current();
        if (error instanceof CodedFailure e) {
            String at = error instanceof SluiceException s
                    ? s.position().map(p -> p + ": ").orElse("") : "";
            err.println(terminal.redact(at + "error[" + e.code() + "] " + e.getMessage()));
            e.fix().ifPresent(fix -> err.println(terminal.redact("  fix: " + fix)));
        } else {
            err.println(terminal.redact("error: " + error));
            if (Boolean.getBoolean("sluice.debug")) {
                error.printStackTrace(err);
            }
        }
        err.flush();
        return exitCodeOf(error);
    }
}
