package io.sluice.app.cli;

import io.sluice.core.SluiceException;
import io.sluice.core.connector.Connections;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.RunLedger;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @Override
    public Integer call() {
        ConnectorRegistry registry = ConnectorRegistry.fromClassPath();
        PrintWriter out = spec.commandLine().getOut();
        PipelineSpec pipeline = SpecFiles.loadForRun(registry, specFile, spec.commandLine().getErr());
        Terminal terminal = Terminal.forSecrets(pipeline.secrets());
        if (!pipeline.ledger()) {
            throw new SluiceException(ErrorKind.USAGE, "STATUS001", "spec '" + pipeline.name()
                    + "' has ledger: off, so no runs are recorded", "remove ledger: off to record later runs");
        }
        boolean found = false;
        try (Connections connections = new Connections(registry, pipeline, state.resolve())) {
            for (StreamSpec stream : pipeline.streams()) {
                RunLedger ledger = ledgerOf(connections, stream);
                List<LedgerStream> runs = runId == null ? ledger.streamsOfSpec(pipeline.name(), RUNS_SHOWN)
                        : ledger.streamsOfRun(runId);
                for (LedgerStream run : runs) {
                    if (!run.stream().equals(stream.name())) {
                        continue;
                    }
                    found = true;
                    out.println(terminal.redact(line(run)));
                    if (runId != null) {
                        for (LedgerPartition partition : ledger.partitions(runId, stream.name())) {
                            out.println(terminal.redact(String.format(Locale.ROOT,
                                    "    %3d. %-7s %,12d rows  %d attempt(s)  %s", partition.index() + 1,
                                    partition.state().name().toLowerCase(Locale.ROOT), partition.rows(),
                                    partition.attempts(), partition.predicate())));
                        }
                    }
                }
            }
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "ledger");
        }
        if (!found) {
            out.println(runId == null ? "no runs of spec " + pipeline.name() + " recorded"
                    : "no run " + runId + " recorded for spec " + pipeline.name());
        }
        out.flush();
        return found || runId == null ? ExitCodes.OK : ExitCodes.USAGE;
    }

    private static RunLedger ledgerOf(Connections connections, StreamSpec stream) throws ConnectorException {
        RunLedger ledger = connections.get(stream.target().connection()).target(stream.target().options()).ledger()
                .orElseThrow(() -> new SluiceException(ErrorKind.USAGE, "STATUS002", "the target of stream '"
                        + stream.name() + "' keeps no ledger", null));
        ledger.ensureReady();
        return ledger;
    }

    private static String line(LedgerStream run) {
        return String.format(Locale.ROOT, "run %s  stream %s: %s, %,d rows, %d/%d partitions, started %s%s%s%s",
                run.runId(), run.stream(), run.state().name().toLowerCase(Locale.ROOT), run.rows(),
                run.partitionsDone(), run.partitionsPlanned(), run.startedAt(),
                run.finishedAt().map(f -> ", finished " + f).orElse(""),
                run.starts() > 1 ? ", started " + run.starts() + " times" : "",
                run.error().map(e -> "\n    error: " + e).orElse(""));
    }
}
