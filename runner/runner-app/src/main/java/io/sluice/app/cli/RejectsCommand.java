package io.sluice.app.cli;

import io.sluice.core.service.RunStatus;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.data.RejectedRow;
import picocli.CommandLine.Command;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code sluice rejects SPEC [RUN_ID]}: the rows the spec's streams set aside, newest first, with their reasons. */
@Command(name = "rejects", description = "Show the rows a spec's streams set aside (rejects:), newest first, with "
        + "the reason each was refused; with RUN_ID, that run's only.")
final class RejectsCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "SPEC", description = "The spec file.")
    Path specFile;

    @CommandLine.Parameters(index = "1", arity = "0..1", paramLabel = "RUN_ID", description = "One run's rows.")
    String runId;

    @CommandLine.Option(names = "--limit", paramLabel = "ROWS", defaultValue = "20", description = "The most rows "
            + "shown per stream (default: ${DEFAULT-VALUE}); the rejects table holds them all.")
    int limit;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @Override
    public Integer call() {
        if (limit < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be at least 1");
        }
        PrintWriter out = spec.commandLine().getOut();
        Sluice sluice = state.sluice();
        PipelineSpec pipeline = SpecFiles.load(sluice, specFile, spec.commandLine().getErr());
        Terminal terminal = Terminal.forSecrets(pipeline.secrets());
        Map<String, List<RejectedRow.Stored>> rows;
        try (RunStatus status = sluice.status(pipeline)) {
            rows = status.rejects(Optional.ofNullable(runId), limit);
        }
        if (rows.isEmpty()) {
            out.println("no stream of spec " + pipeline.name() + " sets rows aside (rejects:)");
        }
        rows.forEach((stream, stored) -> {
            out.println(terminal.redact("stream " + stream + ": " + (stored.isEmpty() ? "no rows set aside"
                    : stored.size() + " newest row(s) set aside" + (stored.size() == limit ? " (--limit shows more)"
                    : ""))));
            for (RejectedRow.Stored s : stored) {
                RejectedRow r = s.row();
                out.println(terminal.redact("  run " + s.origin().runId() + "  " + s.origin().stream() + "  partition "
                        + s.origin().partitionId() + (r.rowNumber() > 0 ? "  row " + r.rowNumber() : "") + "  "
                        + s.rejectedAt() + "\n    " + r.code() + ": " + r.message() + r.column().map(c -> " ("
                        + c + ")").orElse("") + "\n    " + r.row().orElseGet(() -> "raw " + r.rawRow().orElse("{}"))));
            }
        });
        out.flush();
        return ExitCodes.OK;
    }
}
