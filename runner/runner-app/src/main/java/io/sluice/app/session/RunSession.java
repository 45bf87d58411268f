package io.sluice.app.session;

import io.sluice.app.lineage.LineageSettings;
import io.sluice.app.lineage.OpenLineageListener;
import io.sluice.app.report.RunOutcome;
import io.sluice.app.report.SpecIdentity;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.plan.PlanOptions;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.service.PlannedRun;
import io.sluice.core.service.PreparedRun;
import io.sluice.core.service.RunRequest;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.error.CodedFailure;
import io.sluice.toolkit.Redactor;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One run of a spec file, the same steps for {@code sluice run} and for the service: load, connect and plan, check the
 * run id against the ledger, run with the caller's listeners, and the outcome. It never throws for a failed run: an
 * invalid spec (exit 3), a failed preflight (4) or anything else that ends it before it starts (1) is an outcome with
 * its error, like a failed copy. What differs between callers (where diagnostics and notes go, their listeners,
 * progress, interruption) comes in through {@link Hooks}.
 */
public final class RunSession {
    /** What a caller adds to the session's steps; each default does nothing. */
    public interface Hooks {
        /** A diagnostic of the spec's loading (warnings and notes; errors end the session). */
        default void diagnostic(Diagnostic diagnostic) {
        }

        /** The spec loaded: {@code redactor} hides its secrets in whatever the caller prints from here on. */
        default void loaded(PipelineSpec spec, Redactor redactor) {
        }

        /** A line for people: a connector's notice, or a note of the run's preparation. */
        default void note(String line) {
        }

        /** The caller's listeners for run {@code runId} of {@code spec}. */
        default List<RunListener> listeners(PipelineSpec spec, String runId) {
            return List.of();
        }

        /** The run is about to start: for progress and interruption. Closed when the run has ended. */
        default Running started(PipelineRunner runner) {
            return () -> { };
        }
    }

    /** What a caller keeps going while the run runs (a progress display); closing it stops it. */
    @FunctionalInterface
    public interface Running extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * What happened: the outcome, the redactor of the spec's secrets ({@link Redactor#none()} when it did not load),
     * the spec and the report when there were, and the error that ended the session before the run started.
     */
    public record Result(RunOutcome outcome, Redactor redactor, Optional<PipelineSpec> spec,
                         Optional<RunReport> report, Optional<RuntimeException> failedBeforeRun) {
        public Result {
            requireNonNull(outcome, "outcome is null");
            requireNonNull(redactor, "redactor is null");
            requireNonNull(spec, "spec is null");
            requireNonNull(report, "report is null");
            requireNonNull(failedBeforeRun, "failedBeforeRun is null");
        }
    }

    private final Sluice sluice;
    private final java.util.Map<String, String> environment;

    public RunSession(Sluice sluice) {
        this(sluice, System.getenv());
    }

    /** {@code environment}: where OpenLineage settings are read from ({@link LineageSettings}). */
    public RunSession(Sluice sluice, java.util.Map<String, String> environment) {
        this.sluice = requireNonNull(sluice, "sluice is null");
        this.environment = java.util.Map.copyOf(requireNonNull(environment, "environment is null"));
    }

    /**
     * @param file    the spec file
     * @param shownAs how reports name the file (the service shows names relative to its folder, not server paths)
     * @param options how the run is planned ({@code --join}, {@code --full-refresh})
     * @param request the run to start, or to continue
     * @param hooks   what the caller adds
     */
    public Result run(Path file, String shownAs, PlanOptions options, RunRequest request, Hooks hooks) {
        requireNonNull(file, "file is null");
        requireNonNull(shownAs, "shownAs is null");
        requireNonNull(options, "options is null");
        requireNonNull(request, "request is null");
        requireNonNull(hooks, "hooks is null");
        Instant begun = Instant.now();
        Optional<String> id = request.runId();
        PipelineSpec spec;
        try {
            spec = sluice.load(file, shownAs, hooks::diagnostic);
        } catch (RuntimeException e) {
            SpecIdentity identity = SpecIdentity.ofFile(file);
            return new Result(RunOutcome.failedBeforeRun(id, new SpecIdentity(Optional.empty(), shownAs,
                    identity.checksum()), begun, e, exitCodeOf(e)), Redactor.none(), Optional.empty(),
                    Optional.empty(), Optional.of(e));
        }
        Redactor redactor = new Redactor(spec.secrets());
        hooks.loaded(spec, redactor);
        SpecIdentity identity = new SpecIdentity(Optional.of(spec.name()), shownAs, Optional.of(spec.checksum()));
        try (PlannedRun planned = sluice.plan(spec, options)) {
            planned.notices().forEach(hooks::note);
            // Without resume an id the ledger already knows is refused, not silently reused.
            PreparedRun run = planned.prepare(request);
            run.notes().forEach(hooks::note);
            List<RunListener> listeners = new java.util.ArrayList<>(hooks.listeners(spec, run.runId()));
            Optional<OpenLineageListener> lineage = lineage(redactor, run, hooks);
            lineage.ifPresent(listeners::add);
            RunReport report;
            try (Running ignored = hooks.started(run.runner())) {
                report = run.run(RunListener.all(listeners));
            } finally {
                lineage.ifPresent(OpenLineageListener::close); // waits, bounded, for the last events
            }
            return new Result(RunOutcome.of(identity, report), redactor, Optional.of(spec), Optional.of(report),
                    Optional.empty());
        } catch (RuntimeException e) {
            return new Result(RunOutcome.failedBeforeRun(id, identity, begun, e, exitCodeOf(e)), redactor,
                    Optional.of(spec), Optional.empty(), Optional.of(e));
        }
    }

    /** OpenLineage events when the environment asks for them; a setting it cannot use is told, never fatal. */
    private Optional<OpenLineageListener> lineage(Redactor redactor, PreparedRun run, Hooks hooks) {
        LineageSettings settings;
        try {
            settings = LineageSettings.from(environment);
        } catch (RuntimeException e) {
            hooks.note("warning: OpenLineage: " + redactor.redact(String.valueOf(e.getMessage()))
                    + "; no lineage is sent for this run");
            return Optional.empty();
        }
        return settings.enabled()
                ? Optional.of(new OpenLineageListener(settings, redactor::redact, run::lineage, hooks::note))
                : Optional.empty();
    }

    /** An invalid spec is 3, a preflight failure 4 (their codes say so); anything unexpected is a failed run, 1. */
    private static int exitCodeOf(RuntimeException e) {
        return e instanceof CodedFailure coded ? coded.exitCode() : 1;
    }
}
