package io.sluice.app.cli;

import io.sluice.core.SluiceException;
import io.sluice.core.connector.Connections;
import io.sluice.core.diag.Redactor;
import io.sluice.core.ledger.RunResumer;
import io.sluice.spi.ErrorKind;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.Planner;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.RunListener;
import io.sluice.core.run.RunReport;
import io.sluice.core.spec.PipelineSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import sun.misc.Signal;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;

/** {@code sluice run SPEC}: plan, then move the data. */
@Command(name = "run", description = "Plan and run a spec: move the data.")
final class RunCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "SPEC", description = "The spec file.")
    Path specFile;

    @CommandLine.Option(names = "--run-id", paramLabel = "ID",
            description = "Name this run (e.g. Airflow's run id); default: a generated id.")
    String runId;

    @CommandLine.Option(names = "--resume", arity = "0..1", fallbackValue = "", paramLabel = "RUN_ID",
            description = "Continue an earlier run from the ledger: skip its done partitions, copy the rest. Without "
                    + "RUN_ID: the newest unfinished run of this spec. A RUN_ID the ledger does not know starts fresh "
                    + "under that id, so a retried task can always pass --resume with its own id.")
    String resume;

    @CommandLine.Option(names = "--force",
            description = "With --resume: continue even though the stream's definition changed since the run started.")
    boolean force;

    @CommandLine.Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "5",
            description = "Seconds between progress lines when not on a terminal (default: ${DEFAULT-VALUE}).")
    int progressSeconds;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @CommandLine.Mixin
    RunOutputOptions outputs = new RunOutputOptions();

    @Override
    public Integer call() {
        ConnectorRegistry registry = ConnectorRegistry.fromClassPath();
        PrintWriter err = spec.commandLine().getErr();
        PipelineSpec pipeline = SpecFiles.loadForRun(registry, specFile, err);
        Terminal terminal = Terminal.forSecrets(pipeline.secrets());
        try (Connections connections = new Connections(registry, pipeline, state.resolve())) {
            PipelinePlan plan = new Planner(Runtime.getRuntime().availableProcessors()).plan(pipeline, connections);
            connections.notices().forEach(n -> err.println(terminal.redact(n)));
            RunResumer resumer = new RunResumer(new Redactor(pipeline.secrets()));
            String id;
            if (resume != null) {
                id = resumeId(resumer, plan);
                if (resumer.exists(plan, id)) {
                    RunResumer.Resumption resumption = resumer.resume(plan, id, force);
                    plan = resumption.plan();
                    resumption.notes().forEach(n -> err.println(terminal.redact(n)));
                } else {
                    err.println("run " + id + " has no record in the ledger: starting it now");
                }
            } else {
                id = runId != null ? runId : generatedRunId();
                resumer.checkFresh(plan, id);
            }
            List<RunListener> listeners = new ArrayList<>(outputs.listeners(pipeline, id, err, terminal));
            listeners.add(outputs.consoleListener(err, terminal));
            PipelineRunner runner = new PipelineRunner(RunListener.all(listeners));
            onInterrupt(runner::interrupt);
            RunReport report;
            try (RunOutputOptions.Progress ignored = outputs.progress(runner.progress(), err,
                    Duration.ofSeconds(Math.max(1, progressSeconds)))) {
                report = runner.run(plan, id);
            }
            printTotal(report, err, terminal);
            outputs.finish(pipeline, report, err, terminal);
            return report.exitCode();
        }
    }

    private static void printTotal(RunReport report, PrintWriter err, Terminal terminal) {
        double seconds = report.duration().toMillis() / 1000.0;
        err.println(String.format(java.util.Locale.ROOT, "run %s: %s, %,d rows, %.1f MB in %.1f s (exit %d)",
                report.runId(), report.interrupted() ? "interrupted" : report.error().isPresent() ? "failed" : "done",
                report.rows(), report.bytes() / 1e6, seconds, report.exitCode()));
        report.error().ifPresent(e -> {
            err.println(terminal.redact("error[" + e.code() + "] " + e.getMessage()));
            e.fix().ifPresent(fix -> err.println(terminal.redact("  fix: " + fix)));
        });
        err.flush();
    }

    /** Ctrl-C and SIGTERM cancel in-flight copies (rolled back) and end the run with exit 130. */
    private static void onInterrupt(Runnable action) {
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal.handle(new Signal(name), signal -> action.run());
            } catch (IllegalArgumentException e) {
                // The signal is not available on this platform: the JVM's default applies.
            }
        }
    }

    private String resumeId(RunResumer resumer, PipelinePlan plan) {
        if (!resume.isEmpty()) {
            if (runId != null && !runId.equals(resume)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--run-id " + runId + " and --resume " + resume + " name different runs");
            }
            return resume;
        }
        if (runId != null) {
            return runId;
        }
        return resumer.latestUnfinished(plan).orElseThrow(() -> new SluiceException(ErrorKind.USAGE, "RESUME004",
                "no unfinished run of spec '" + plan.spec().name() + "' in the ledger", "start a new run without "
                        + "--resume"));
    }

    static String generatedRunId() {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
    }
}
