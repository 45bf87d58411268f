package io.sluice.app.cli;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.lint.LintFormat;
import io.sluice.core.lint.LintReport;
import io.sluice.core.lint.Linter;
import io.sluice.core.spec.Environment;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code sluice lint PATH...}: offline checks of spec files, every problem in one pass. */
@Command(name = "lint", description = "Check spec files offline and report every problem with file:line:col. "
        + "Exit 0 when there is no error (warnings allowed), 3 when there is one.")
final class LintCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(arity = "1..*", paramLabel = "PATH",
            description = "Spec files, or folders searched for *.yaml and *.yml.")
    List<Path> paths;

    @CommandLine.Option(names = "--format", defaultValue = "text", paramLabel = "FORMAT",
            description = "text, json, github (workflow annotations) or sarif (SARIF 2.1.0).")
    String format;

    @Override
    public Integer call() {
        LintFormat lintFormat;
        try {
            lintFormat = LintFormat.parse(format);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        LintReport report = new Linter(ConnectorRegistry.fromClassPath(), Environment.system()).lint(paths);
        PrintWriter out = spec.commandLine().getOut();
        out.print(lintFormat.render(report));
        out.flush();
        return report.exitCode();
    }
}
