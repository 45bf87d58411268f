package io.sluice.app.cli;

import io.sluice.app.output.PlanText;
import io.sluice.app.report.HtmlRunReport;
import io.sluice.app.report.LedgerTimeline;
import io.sluice.app.report.ReportFiles;
import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.plan.IncrementalWindow;
import io.sluice.core.run.report.Verification;
import io.sluice.core.service.RunStatus;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LoadMarks;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;



/** {@code sluice status SPEC [RUN_ID]}: runs and partition progress as the targets' ledgers recorded them. */
@Command(name = "status", description = "Show the runs of a spec from the ledger in its targets; with RUN_ID, "
        + "that run's partitions.")
final class StatusCommand implements Callable<Integer> {
    private static final int RUNS_SHOWN = 10;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "SPEC", description = "The spec file (its targets hold the "
            + "ledger).")
    Path specFile;

    @CommandLine.Parameters(index = "1", arity = "0..1", paramLabel = "RUN_ID", description = "One run to detail.")
    String runId;

    @CommandLine.Option(names = "--report", paramLabel = "PATH", description = "With RUN_ID: write that run's "
            + "self-contained HTML report here, from the ledger (partitions over time, attempts, throughput).")
    Path htmlReport;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Sluice sluice = state.sluice();
        PipelineSpec pipeline = SpecFiles.load(sluice, specFile, spec.commandLine().getErr());
        Terminal terminal = Terminal.forSecrets(pipeline.secrets());
        if (htmlReport != null && runId == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--report needs RUN_ID: the report is of "
                    + "one run (sluice status " + specFile + " shows the runs and their ids)");
        }
        List<RunStatus.StreamRun> runs;
        List<RunStatus.FeedStatus> feeds;
        try (RunStatus status = sluice.status(pipeline)) {
            runs = status.runs(Optional.ofNullable(runId), RUNS_SHOWN);
            feeds = runId == null ? status.feeds() : List.of();
        }
        for (RunStatus.FeedStatus feed : feeds) {
            feedLines(pipeline.name(), feed).forEach(l -> out.println(terminal.redact(l)));
        }
        for (RunStatus.StreamRun run : runs) {
            out.println(terminal.redact(line(run.stream())));
            String upTo = run.marks().get(IncrementalWindow.UP_TO);
            if (upTo != null) {
                String after = run.marks().get(IncrementalWindow.AFTER);
                out.println(terminal.redact("    incremental: read " + (after == null ? "from the start" : "above "
                        + after) + " up to " + upTo + (run.stream().state() == LedgerStream.State.DONE
                        ? " (the high-water mark the next run starts from, unless a later run moved it)"
                        : " (not done: the mark does not move)")));
            }
            String compared = run.marks().get(Verification.COMPARE_MARK);
            if (compared != null) {
                out.println(terminal.redact("    verify compare: " + compared));
            }
            String leftBehind = run.marks().getOrDefault(Ledger.TARGET_MARKS + LoadMarks.LEFT_BEHIND, "");
            if (!leftBehind.isEmpty()) {
                out.println(terminal.redact("    left behind: " + leftBehind + " (sluice run --resume "
                        + run.stream().runId() + " finishes the load; a new run of the spec cleans it up)"));
            }
            long rejected = run.partitions().stream().mapToLong(LedgerPartition::rejected).sum();
            if (rejected > 0) {
                out.println(terminal.redact(String.format(Locale.ROOT, "    rejects: %,d rows set aside (sluice "
                        + "rejects %s %s lists them)", rejected, specFile, run.stream().runId())));
            }
            for (LedgerPartition partition : run.partitions()) {
                out.println(terminal.redact(String.format(Locale.ROOT,
                        "    %3d. %-7s %,12d rows%s  %d attempt(s)  %s%s", partition.index() + 1,
                        partition.state().name().toLowerCase(Locale.ROOT), partition.rows(),
                        partition.rejected() > 0 ? String.format(Locale.ROOT, " (%,d set aside)",
                                partition.rejected()) : "",
                        partition.attempts(), partition.predicate(), holder(partition))));
            }
        }
        if (htmlReport != null && !runs.isEmpty()) {
            try {
                ReportFiles.write(htmlReport, new HtmlRunReport(terminal::redact).render(LedgerTimeline.of(
                        pipeline.name(), runs, Instant.now())));
                out.println("report: " + terminal.redact(htmlReport.toString()));
            } catch (IOException e) {
                throw new SluiceException(ErrorKind.USAGE, RunnerCode.STATUS003, "cannot write the report to "
                        + htmlReport + ": " + e.getMessage(), "give --report a path in a writable directory");
            }
        }
        if (runs.isEmpty()) {
            out.println(runId == null ? "no runs of spec " + pipeline.name() + " recorded"
                    : "no run " + runId + " recorded for spec " + pipeline.name());
        }
        out.flush();
        return !runs.isEmpty() || runId == null ? ExitCodes.OK : ExitCodes.USAGE;
    }

    /** A change feed: how far the ledger says it got, and what its slot holds on the source. */
    private List<String> feedLines(String specName, RunStatus.FeedStatus feed) {
        List<String> lines = new java.util.ArrayList<>();
        String recorded = feed.record().map(r -> switch (r.state()) {
            case COPYING -> "copying (run " + r.runId() + "): changes apply from " + r.position() + " once the copy "
                    + "is done";
            case APPLYING -> "applied up to " + r.position() + " (run " + r.runId() + r.updatedAt().map(at -> ", "
                    + at).orElse("") + ")";
        }).orElse("not started: the next run copies in its snapshot");
        if (feed.streams().isEmpty()) {
            lines.add("changes " + feed.feed() + ": " + recorded + "; no stream of the spec follows it any more");
            lines.add("    " + PlanText.orphanedSlot(specName, feed.feed()));
            return lines;
        }
        lines.add("changes " + feed.feed() + " (" + String.join(", ", feed.streams()) + "): " + recorded);
        feed.state().ifPresent(state -> {
            if (!state.exists()) {
                lines.add(feed.record().isPresent() ? "    slot: gone from the source; the changes since cannot be "
                        + "read: sluice run " + specFile + " --restart-changes copies again from a new slot"
                        : "    slot: not created yet");
                return;
            }
            lines.add(String.format(Locale.ROOT, "    slot: %s, %s behind the source, %s of WAL retained on it "
                            + "(wal_status %s)%s", state.active() ? "read by a run now" : "idle",
                    mb(state.behindBytes()), mb(state.retainedBytes()), state.health(),
                    "lost".equals(state.health()) ? "; the changes since are lost: sluice run " + specFile
                            + " --restart-changes copies again" : ""));
            if (state.retainsTooMuch()) {
                lines.add("    warning: more WAL retained than the stream's retained-warning-mb: run the spec (or run "
                        + "--follow) to apply and confirm the changes, which frees it");
            }
        });
        return lines;
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1_000_000.0);
    }

    /** In a joined run, which process copied the partition, or holds it (until when) while it copies. */
    private static String holder(LedgerPartition partition) {
        return partition.claim().map(c -> partition.state() == LedgerPartition.State.DONE
                ? "  copied by " + c.holder() : "  held by " + c.holder() + " until " + c.leaseUntil()).orElse("");
    }

    private static String line(LedgerStream run) {
        if (run.starts() == 0) {
            return String.format(Locale.ROOT, "run %s  stream %s: not started (planned %s; the run is unfinished "
                    + "until it is done)", run.runId(), run.stream(), run.startedAt());
        }
        return String.format(Locale.ROOT, "run %s  stream %s: %s, %,d rows, %d/%d partitions, started %s%s%s%s",
                run.runId(), run.stream(), run.state().name().toLowerCase(Locale.ROOT), run.rows(),
                run.partitionsDone(), run.partitionsPlanned(), run.startedAt(),
                run.finishedAt().map(f -> ", finished " + f).orElse(""),
                run.starts() > 1 ? ", started " + run.starts() + " times" : "",
                run.error().map(e -> "\n    error: " + e).orElse(""));
    }
}
