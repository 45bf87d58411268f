package io.sluice.app.serve;

import io.sluice.app.report.RunOutcome;
import io.sluice.app.report.SpecIdentity;
import io.sluice.core.SluiceException;
import io.sluice.spi.Redactor;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.RunListener;
import io.sluice.core.run.RunReport;
import io.sluice.core.service.PlannedRun;
import io.sluice.core.service.PreparedRun;
import io.sluice.core.service.RunRequest;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;




/**
 * One run of a spec file with the same steps as {@code sluice run} (load, connect, plan, check the run id against
 * the ledger, run), for callers that are not a command line. It never throws for a failed run: an invalid spec or
 * a failed preflight is an outcome with its exit code and error, like a failed copy.
 */
final class SpecRun {
    /** The outcome and the redactor for the spec's secrets (empty redactor when the spec did not load). */
    record Result(RunOutcome outcome, Redactor redactor) {
        Result {
            requireNonNull(outcome, "outcome is null");
            requireNonNull(redactor, "redactor is null");
        }
    }

    private final Sluice sluice;

    SpecRun(Sluice sluice) {
        this.sluice = requireNonNull(sluice, "sluice is null");
    }

    /**
     * @param file      the spec file
     * @param shownAs   how reports name the file (the service shows names relative to its folder, not server paths)
     * @param request   the run to start, or to continue
     * @param listeners extra listeners for the loaded spec, e.g. meters
     * @param started   told the runner before the copy starts, for progress and interruption
     */
    Result run(Path file, String shownAs, RunRequest request, Function<PipelineSpec, List<RunListener>> listeners,
               Consumer<PipelineRunner> started) {
        Instant begun = Instant.now();
        Optional<String> id = request.runId();
        PipelineSpec spec;
        try {
            spec = sluice.load(file, shownAs, diagnostic -> { });
        } catch (SluiceException e) {
            SpecIdentity identity = SpecIdentity.ofFile(file);
            return new Result(RunOutcome.failedBeforeRun(id, new SpecIdentity(Optional.empty(), shownAs,
                    identity.checksum()), begun, e, e.exitCode()), Redactor.none());
        }
        Redactor redactor = new Redactor(spec.secrets());
        SpecIdentity identity = new SpecIdentity(Optional.of(spec.name()), shownAs, Optional.of(spec.checksum()));
        try (PlannedRun planned = sluice.plan(spec)) {
            // As 'sluice run': without resume an id the ledger already knows is refused, not silently reused.
            PreparedRun run = planned.prepare(request);
            started.accept(run.runner());
            RunReport report = run.run(RunListener.all(listeners.apply(spec)));
            return new Result(RunOutcome.of(identity, report), redactor);
        } catch (SluiceException e) {
            return new Result(RunOutcome.failedBeforeRun(id, identity, begun, e, e.exitCode()), redactor);
        } catch (RuntimeException e) {
            return new Result(RunOutcome.failedBeforeRun(id, identity, begun, e, 1), redactor);
        }
    }
}
