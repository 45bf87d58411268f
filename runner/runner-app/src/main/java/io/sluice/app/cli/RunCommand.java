package io.sluice.app.cli;

import io.sluice.app.session.RunSession;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.plan.PlanOptions;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.changes.ChangeFollow;
import io.sluice.core.run.context.Join;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.service.RunRequest;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.toolkit.Redactor;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import sun.misc.Signal;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;



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

    @CommandLine.Option(names = "--discard-unfinished",
            description = "Start a fresh run even though an unfinished run of this spec appended rows that this run "
                    + "would load again (after you deleted them, or to have them twice). Without it such a run is "
                    + "refused (RESUME008) and --resume is the way to finish it exactly once.")
    boolean discardUnfinished;

    @CommandLine.Option(names = "--full-refresh",
            description = "Incremental streams read every row this once, ignoring how far earlier runs read; the run "
                    + "then records the new high-water mark as usual.")
    boolean fullRefresh;

    @CommandLine.Mixin
    ScopeOptions scope = new ScopeOptions();

    @CommandLine.Option(names = "--join",
            description = "Share this run with other processes started with the same --run-id (Kubernetes pods, "
                    + "Airflow mapped tasks): each claims partitions from the ledger, and each ends when every "
                    + "partition is done, whoever copied it. Needs consistency: none where the source would share a "
                    + "snapshot.")
    boolean join;

    @CommandLine.Option(names = "--lease-seconds", paramLabel = "SECONDS", defaultValue = "30",
            description = "With --join: how long a claimed partition stays this process's without a renewal (it "
                    + "renews every third of it); a process silent longer loses its partitions to the others "
                    + "(default: ${DEFAULT-VALUE}).")
    int leaseSeconds;

    @CommandLine.Option(names = "--follow",
            description = "Streams that follow changes (changes:) keep applying them after the copy, until SIGTERM "
                    + "or Ctrl-C (the batch under way is committed and confirmed, then exit 0).")
    boolean follow;

    @CommandLine.Option(names = "--until-lag", paramLabel = "BYTES",
            description = "With --follow: stop once caught up with the source (0 is the one value taken: quiesce "
                    + "the source first, then this is the cut-over).")
    Long untilLag;

    @CommandLine.Option(names = "--restart-changes",
            description = "Forget where this spec's change feeds got and start them again: a new slot, and every "
                    + "table copied afresh in its snapshot (after a slot was dropped or lost its WAL).")
    boolean restartChanges;

    @CommandLine.Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "5",
            description = "Seconds between progress lines when not on a terminal (default: ${DEFAULT-VALUE}; env: "
                    + "SLUICE_PROGRESS_INTERVAL).")
    int progressSeconds;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @CommandLine.Mixin
    RunOutputOptions outputs = new RunOutputOptions();

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        for (String id : new String[]{runId, resume == null || resume.isEmpty() ? null : resume}) {
            if (id != null && !RunRequest.RUN_ID.matcher(id).matches()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "run id '" + Terminal.current()
                        .redact(id) + "' is not valid: a run id is " + RunRequest.RUN_ID_RULE);
            }
        }
        if (runId != null && resume != null && !resume.isEmpty() && !runId.equals(resume)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--run-id " + runId + " and --resume " + resume + " name different runs");
        }
        if (untilLag != null && (untilLag != 0 || !follow)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--until-lag takes 0 only, with --follow "
                    + "(stop once caught up with the source)");
        }
        if (join && leaseSeconds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--lease-seconds must be at least 1");
        }
        try {
            return run(err);
        } catch (RuntimeException e) {
            outputs.failedBeforeRun(specFile, e, err); // nothing once the run has ended and written its files
            throw e;
        }
    }

    /**
     * After SIGTERM or Ctrl-C, how long in-flight copies get to roll back before the process exits 130 anyway (a read
     * stalled on the network may not notice its cancel): within Kubernetes' default 30 s grace. The server rolls back
     * what an ended connection had not committed, and the ledger never marks such a partition done.
     */
    static final Duration INTERRUPT_GRACE = Duration.ofSeconds(20);

    private int run(PrintWriter err) {
        outputs.checkWritable(spec);
        // Until the run starts, a signal ends the process at once: nothing has been written yet.
        onInterrupt(() -> {
            err.println("interrupted before the run started: nothing was written (exit "
                    + RunReport.EXIT_INTERRUPTED + ")");
            err.flush();
            System.exit(RunReport.EXIT_INTERRUPTED);
        });
        Terminal[] terminal = {Terminal.current()};
        RunSession.Result result = new RunSession(state.sluice()).run(specFile, specFile.toString(),
                new PlanOptions(join, fullRefresh, scope.scope()), new RunRequest(Optional.ofNullable(runId),
                        Optional.ofNullable(resume), force, join ? Optional.of(Join.thisProcess(
                        Duration.ofSeconds(leaseSeconds))) : Optional.empty(), discardUnfinished),
                new RunSession.Hooks() {
                    @Override
                    public void diagnostic(Diagnostic diagnostic) {
                        err.println(diagnostic.headline());
                        diagnostic.fix().ifPresent(fix -> err.println("  fix: " + fix));
                        err.flush();
                    }

                    @Override
                    public void loaded(PipelineSpec pipeline, Redactor redactor) {
                        terminal[0] = Terminal.forSecrets(pipeline.secrets());
                    }

                    @Override
                    public void note(String line) {
                        err.println(terminal[0].redact(line));
                    }

                    @Override
                    public List<RunListener> listeners(PipelineSpec pipeline, String id) {
                        List<RunListener> listeners = new ArrayList<>(outputs.listeners(pipeline, id, err,
                                terminal[0]));
                        listeners.add(outputs.consoleListener(err, terminal[0]));
                        return listeners;
                    }

                    @Override
                    public RunSession.Running started(PipelineRunner runner) {
                        runner.follow(new ChangeFollow(follow, untilLag != null,
                                restartChanges));
                        onInterrupt(() -> interrupt(runner, err));
                        RunOutputOptions.Progress progress = outputs.progress(runner.progress(), err,
                                Duration.ofSeconds(Math.max(1, progressSeconds)));
                        return progress::close;
                    }
                });
        if (result.failedBeforeRun().isPresent()) {
            throw result.failedBeforeRun().get(); // call() leaves the reports of a failed run, then the exit code
        }
        RunReport report = result.report().orElseThrow();
        printTotal(report, err, terminal[0]);
        if (join) {
            long mine = report.streams().stream().flatMap(st -> st.partitions().stream())
                    .filter(p -> p.state() == PartitionReport.State.DONE).count();
            err.println("joined run " + report.runId() + ": this process copied " + mine + " partition(s); "
                    + "the others copied the rest (sluice status " + specFile + " " + report.runId() + ")");
            err.flush();
        }
        boolean written = outputs.finish(result.spec().orElseThrow(), report, err, terminal[0]);
        if (!written && report.exitCode() == ExitCodes.OK) {
            err.println("run " + report.runId() + ": done, but a file asked for was not written (see the warning "
                    + "above): exit " + ExitCodes.OUTPUT_NOT_WRITTEN);
            err.flush();
            return ExitCodes.OUTPUT_NOT_WRITTEN;
        }
        return report.exitCode();
    }

    /** Ctrl-C or SIGTERM while the run runs: its copies are cancelled, and the process exits after a grace anyway. */
    private static void interrupt(PipelineRunner runner, PrintWriter err) {
        runner.interrupt();
        Thread.ofPlatform().daemon().name("sluice-interrupt-grace").start(() -> {
            try {
                Thread.sleep(INTERRUPT_GRACE);
            } catch (InterruptedException e) {
                return;
            }
            err.println("interrupted: in-flight copies did not stop within " + INTERRUPT_GRACE.toSeconds()
                    + " s (a read stalled on the network?); exiting: their uncommitted rows roll back with "
                    + "their connections, and no partition is marked done that was not committed");
            err.flush();
            System.exit(RunReport.EXIT_INTERRUPTED);
        });
    }

    private static void printTotal(RunReport report, PrintWriter err, Terminal terminal) {
        double seconds = report.duration().toMillis() / 1000.0;
        err.println(String.format(java.util.Locale.ROOT, "run %s: %s, %,d rows, %.1f MB in %.1f s (exit %d)",
                report.runId(), report.interrupted() ? "interrupted" : report.error().isPresent() ? "failed" : "done",
                report.rows(), report.bytes() / 1e6, seconds, report.exitCode()));
        report.error().ifPresent(e -> {
            err.println(terminal.redact(e.position().map(p -> p + ": ").orElse("") + "error[" + e.code() + "] "
                    + e.getMessage()));
            e.fix().ifPresent(fix -> err.println(terminal.redact("  fix: " + fix)));
        });
        err.flush();
    }

    /** Ctrl-C and SIGTERM cancel in-flight copies (rolled back) and end the run with exit 130; compare uses it too. */
    static void onInterrupt(Runnable action) {
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal.handle(new Signal(name), signal -> action.run());
            } catch (IllegalArgumentException e) {
                // The signal is not available on this platform: the JVM's default applies.
            }
        }
    }
}
