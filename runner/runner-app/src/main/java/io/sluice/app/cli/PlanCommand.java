package io.sluice.app.cli;

import io.sluice.app.output.PlanJson;
import io.sluice.app.output.PlanText;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.PlanOptions;
import io.sluice.core.service.PlannedRun;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code sluice plan SPEC}: connects, checks everything a run would check, and prints the plan. Writes nothing. */
@Command(name = "plan", description = "Connect, run the preflight checks, and print what a run would do. "
        + "Writes nothing.")
final class PlanCommand implements Callable<Integer> {
    enum Format { TEXT, JSON }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "SPEC", description = "The spec file.")
    Path specFile;

    @CommandLine.Option(names = "--format", defaultValue = "text", description = "text or json.")
    Format format;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @CommandLine.Mixin
    ScopeOptions scope = new ScopeOptions();

    @Override
    public Integer call() {
        Sluice sluice = state.sluice();
        PipelineSpec pipeline = SpecFiles.load(sluice, specFile, spec.commandLine().getErr());
        Terminal terminal = Terminal.forSecrets(pipeline.secrets());
        try (PlannedRun planned = sluice.plan(pipeline, new PlanOptions(false, false, scope.scope()))) {
            PipelinePlan plan = planned.plan();
            String text;
            if (format == Format.JSON) {
                text = PlanJson.render(plan, planned.sharedSnapshots());
            } else {
                StringWriter buffer = new StringWriter();
                PlanText.print(plan, planned.sharedSnapshots(), planned.changeFeeds(), new PrintWriter(buffer));
                text = buffer.toString();
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(terminal.redact(text));
            out.flush();
            PrintWriter err = spec.commandLine().getErr();
            planned.notices().forEach(n -> err.println(terminal.redact(n)));
            err.flush();
        }
        return ExitCodes.OK;
    }
}
