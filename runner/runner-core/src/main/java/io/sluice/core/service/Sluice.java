package io.sluice.core.service;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.compare.CompareReport;
import io.sluice.core.compare.Comparer;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
import io.sluice.core.lint.LintReport;
import io.sluice.core.lint.Linter;
import io.sluice.core.lint.connect.ConnectedLinter;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.Connections;
import io.sluice.core.plan.PlanOptions;
import io.sluice.core.plan.Planner;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.LoadResult;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.SpecLoader;
import io.sluice.spi.error.ErrorKind;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The one way through Sluice: load a spec, connect and plan it, resume or start a run, run it, read its status, lint
 * it. The command line, {@code sluice serve} and any embedding program are adapters over this object; none composes
 * the steps itself. Failures before a run starts are {@link SluiceException}s with their exit code; a run that starts
 * always ends in a {@link io.sluice.core.run.report.RunReport}.
 */
public final class Sluice {
    private final ConnectorRegistry registry;
    private final Environment environment;
    private final Path stateDirectory;
    private final int availableCores;

    public Sluice(ConnectorRegistry registry, Environment environment, Path stateDirectory, int availableCores) {
        this.registry = requireNonNull(registry, "registry is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
        if (availableCores <= 0) {
            throw new IllegalArgumentException("availableCores must be positive: " + availableCores);
        }
        this.availableCores = availableCores;
    }

    /** The installed connectors, the process environment and this machine's cores. */
    public static Sluice onThisMachine(ConnectorRegistry registry, Path stateDirectory) {
        return new Sluice(registry, Environment.system(), stateDirectory, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Loads a spec as a run needs it (every variable and secret resolved). Each diagnostic that is not a note goes to
     * {@code shown}; any error stops here with SPEC000 (exit 3), before a server is contacted.
     *
     * @param shownAs how messages name the file (the service shows names relative to its folder)
     */
    public PipelineSpec load(Path file, String shownAs, Consumer<Diagnostic> shown) {
        requireNonNull(file, "file is null");
        requireNonNull(shownAs, "shownAs is null");
        requireNonNull(shown, "shown is null");
        LoadResult result = new SpecLoader(registry, environment, SpecLoader.Mode.RUN).load(file);
        List<Diagnostic> errors = result.diagnostics().stream().filter(d -> d.severity() == Severity.ERROR).toList();
        result.diagnostics().stream().filter(d -> d.severity() != Severity.NOTE).forEach(shown);
        if (!errors.isEmpty() || result.spec().isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.SPEC000, shownAs + " has " + errors.size()
                    + " error(s); nothing was run: " + errors.stream().limit(3)
                    .map(d -> d.position().line() + ":" + d.position().column() + ": " + d.message())
                    .collect(Collectors.joining("; ")) + (errors.size() > 3 ? "; ..." : ""),
                    "fix them; 'sluice lint " + shownAs + "' lists them all");
        }
        return result.spec().get();
    }

    /**
     * Connects to the spec's servers and plans every stream: the preflight, which writes nothing (exit 4 when it
     * fails). The caller closes the result, which closes the connections.
     */
    public PlannedRun plan(PipelineSpec spec) {
        return plan(spec, PlanOptions.DEFAULT);
    }

    /**
     * {@link #plan(PipelineSpec)} as {@code options} ask: for one of several processes of a run ({@code joined}:
     * every stream split into partitions the processes can share, never one transaction, never one process's
     * snapshot), or reading incremental streams whole once ({@code fullRefresh}).
     */
    public PlannedRun plan(PipelineSpec spec, PlanOptions options) {
        requireNonNull(spec, "spec is null");
        requireNonNull(options, "options is null");
        Connections connections = connect(spec);
        try {
            BoundPlan plan = new Planner(availableCores, options).plan(spec, connections);
            return new PlannedRun(spec, connections, plan, options.joined());
        } catch (RuntimeException | Error e) {
            try {
                connections.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * {@code sluice compare}: plans the spec as a run reading every row would ({@code --full-refresh}: an incremental
     * stream's target holds them all), writes nothing, and compares each stream's target with its source now.
     *
     * @param stream         one stream (a pattern's stream: all its tables), or empty for all
     * @param maxDifferences how many differences each stream lists; all are counted
     */
    public CompareReport compare(PipelineSpec spec, Optional<String> stream, int maxDifferences) {
        requireNonNull(spec, "spec is null");
        try (PlannedRun planned = plan(spec, new PlanOptions(false, true))) {
            return new Comparer(planned.bound(), maxDifferences).compare(stream);
        }
    }

    /** The runs of a spec as its targets' ledgers recorded them; see {@link RunStatus}. */
    public RunStatus status(PipelineSpec spec) {
        requireNonNull(spec, "spec is null");
        return new RunStatus(spec, connect(spec));
    }

    /** {@code sluice lint}: the offline checks, or with {@code connect} also what only the servers know. */
    public LintReport lint(List<Path> paths, boolean connect) {
        requireNonNull(paths, "paths is null");
        return connect ? new ConnectedLinter(registry, environment, stateDirectory).lint(paths)
                : new Linter(registry, environment).lint(paths);
    }

    private Connections connect(PipelineSpec spec) {
        return new Connections(registry, spec, stateDirectory);
    }
}
