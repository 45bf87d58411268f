package io.sluice.app.cli;

import io.sluice.app.output.CompareOutput;
import io.sluice.core.compare.CompareReport;
import io.sluice.core.service.RunStatus;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.ledger.ChangeFeedRecord;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/**
 * {@code sluice compare SPEC}: is each stream's target what the spec promises from its source now? Exit 0 when
 * every stream is equal, 5 when rows differ (each listed, up to {@code --max-differences}). Writes nothing.
 */
@Command(name = "compare", description = "Compare each stream's target with what the spec makes of its source now "
        + "(renames, column rules, filter, casts applied), and list the rows that differ. Exit 0: equal; 5: "
        + "different. Writes nothing.")
final class CompareCommand implements Callable<Integer> {
    enum Format { TEXT, JSON }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "SPEC", description = "The spec file.")
    Path specFile;

    @CommandLine.Option(names = "--stream", paramLabel = "NAME", description = "Only this stream (a table "
            + "pattern's stream: all its tables).")
    String stream;

    @CommandLine.Option(names = "--format", defaultValue = "text", description = "text or json.")
    Format format;

    @CommandLine.Option(names = "--max-differences", paramLabel = "N", defaultValue = "1000",
            description = "How many differing rows each stream lists (all are counted). Default: ${DEFAULT-VALUE}.")
    int maxDifferences;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @Override
    public Integer call() {
        if (maxDifferences < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-differences must be 0 or more, not "
                    + maxDifferences);
        }
        Sluice sluice = state.sluice();
        PrintWriter err = spec.commandLine().getErr();
        // Nothing to roll back: a compare only reads. The servers end its statements as its connections close.
        RunCommand.onInterrupt(() -> {
            err.println("compare interrupted; nothing was written (exit " + ExitCodes.INTERRUPTED + ")");
            err.flush();
            System.exit(ExitCodes.INTERRUPTED);
        });
        PipelineSpec pipeline = SpecFiles.load(sluice, specFile, err);
        Terminal terminal = Terminal.forSecrets(pipeline.secrets());
        List<CompareOutput.Following> following = following(sluice, pipeline);
        CompareReport report = sluice.compare(pipeline, Optional.ofNullable(stream), maxDifferences);
        PrintWriter out = spec.commandLine().getOut();
        out.println(terminal.redact(format == Format.JSON ? CompareOutput.json(report, following)
                : CompareOutput.text(report, following)));
        out.flush();
        return report.equal() ? ExitCodes.OK : ExitCodes.VERIFICATION;
    }

    /**
     * The change feeds the compared streams follow, as they are before the compare begins: the source is compared as
     * it is now, the target holds it as of what was applied, and the distance between the two is said.
     */
    private List<CompareOutput.Following> following(Sluice sluice, PipelineSpec pipeline) {
        try (RunStatus status = sluice.status(pipeline)) {
            return status.feeds().stream()
                    .filter(f -> f.state().isPresent() && !f.streams().isEmpty()
                            && (stream == null || f.streams().contains(stream)))
                    .map(f -> new CompareOutput.Following(f.feed(), f.streams(), f.record()
                            .filter(r -> r.state() == ChangeFeedRecord.State.APPLYING).map(ChangeFeedRecord::position),
                            f.state().get().exists() ? OptionalLong.of(f.state().get().behindBytes())
                                    : OptionalLong.empty()))
                    .toList();
        }
    }
}
