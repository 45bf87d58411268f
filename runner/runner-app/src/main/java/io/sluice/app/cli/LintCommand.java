package io.sluice.app.cli;

import io.sluice.app.logging.StderrLogging;
import io.sluice.core.lint.LintFormat;
import io.sluice.core.lint.LintReport;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sluice lint PATH...}: offline checks of spec files, every problem in one pass. With {@code --connect}, also
 * asks the servers whether the tables and columns exist and the types convert (catalog reads only).
 */
@Command(name = "lint", description = "Check spec files offline and report every problem with file:line:col; "
        + "with --connect, also against the servers. Exit 0 when there is no error (warnings allowed), 3 when there "
        + "is one.")
final class LintCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(arity = "1..*", paramLabel = "PATH",
            description = "Spec files, or folders searched for *.yaml and *.yml.")
    List<Path> paths;

    @CommandLine.Option(names = "--format", defaultValue = "text", paramLabel = "FORMAT",
            description = "text, json, github (workflow annotations) or sarif (SARIF 2.1.0).")
    String format;

    @CommandLine.Option(names = "--connect",
            description = "Also connect (catalog reads only, nothing written) and check that sources and targets "
                    + "exist, columns match and types convert. Needs the spec's variables and secret files, as a "
                    + "run does.")
    boolean connect;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @Override
    public Integer call() {
        LintFormat lintFormat;
        try {
            lintFormat = LintFormat.parse(format);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (connect) {
            libraryLogsToStderr();
        }
        LintReport report = state.sluice().lint(paths, connect);
        PrintWriter out = spec.commandLine().getOut();
        out.print(lintFormat.render(report));
        out.flush();
        return report.exitCode();
    }

    /**
     * Connecting wakes libraries that log (the embedded PostgreSQL echoes its server log), and without Spring their
     * default is DEBUG on stdout, which would corrupt a json or sarif report that CI parses. So warnings and errors
     * go to stderr, and stdout carries the report alone.
     */
    private static void libraryLogsToStderr() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another SLF4J backend: its own configuration applies
        }
        context.reset();
        StderrLogging.apply(context);
    }
}
