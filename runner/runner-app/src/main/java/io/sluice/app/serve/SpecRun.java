package io.sluice.app.serve;

import io.sluice.app.report.RunOutcome;
import io.sluice.app.report.SpecIdentity;
import io.sluice.core.SluiceException;
import io.sluice.core.connector.Connections;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Redactor;
import io.sluice.core.diag.Severity;
import io.sluice.core.ledger.RunResumer;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.Planner;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.RunListener;
import io.sluice.core.run.RunReport;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.LoadResult;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.SpecLoader;
import io.sluice.spi.ErrorKind;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

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

    private final ConnectorRegistry registry;
    private final Environment environment;
    private final Path stateDirectory;

    SpecRun(ConnectorRegistry registry, Environment environment, Path stateDirectory) {
        this.registry = requireNonNull(registry, "registry is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
    }

    /**
     * @param file      the spec file
     * @param shownAs   how reports name the file (the service shows names relative to its folder, not server paths)
     * @param listeners extra listeners for the loaded spec, e.g. meters
     * @param started   told the runner before the copy starts, for progress and interruption
     */
    Result run(Path file, String shownAs, String runId, Function<PipelineSpec, List<RunListener>> listeners,
               Consumer<PipelineRunner> started) {
        Instant begun = Instant.now();
        Optional<String> id = Optional.of(runId);
        LoadResult loaded = new SpecLoader(registry, environment, SpecLoader.Mode.RUN).load(file);
        List<Diagnostic> errors = loaded.diagnostics().stream().filter(d -> d.severity() == Severity.ERROR).toList();
        if (!errors.isEmpty() || loaded.spec().isEmpty()) {
            SpecIdentity identity = SpecIdentity.ofFile(file);
            SluiceException error = new SluiceException(ErrorKind.INVALID_SPEC, "SPEC000", shownAs + " has "
                    + errors.size() + " error(s); nothing was run: " + errors.stream()
                    .map(d -> d.position().line() + ":" + d.position().column() + ": " + d.message())
                    .collect(Collectors.joining("; ")), "run 'sluice lint' on the spec to see them all");
            return new Result(RunOutcome.failedBeforeRun(id, new SpecIdentity(Optional.empty(), shownAs,
                    identity.checksum()), begun, error, error.exitCode()), Redactor.none());
        }
        PipelineSpec spec = loaded.spec().get();
        Redactor redactor = new Redactor(spec.secrets());
        SpecIdentity identity = new SpecIdentity(Optional.of(spec.name()), shownAs, Optional.of(spec.checksum()));
        try (Connections connections = new Connections(registry, spec, stateDirectory)) {
            PipelinePlan plan = new Planner(Runtime.getRuntime().availableProcessors()).plan(spec, connections);
            // As 'sluice run' without --resume: an id the ledger already knows is refused, not silently reused.
            new RunResumer(redactor).checkFresh(plan, runId);
            PipelineRunner runner = new PipelineRunner(RunListener.all(listeners.apply(spec)));
            started.accept(runner);
            RunReport report = runner.run(plan, runId);
            return new Result(RunOutcome.of(identity, report), redactor);
        } catch (SluiceException e) {
            return new Result(RunOutcome.failedBeforeRun(id, identity, begun, e, e.exitCode()), redactor);
        } catch (RuntimeException e) {
            return new Result(RunOutcome.failedBeforeRun(id, identity, begun, e, 1), redactor);
        }
    }
}
