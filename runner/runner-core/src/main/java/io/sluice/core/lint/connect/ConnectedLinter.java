package io.sluice.core.lint.connect;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Position;
import io.sluice.core.diag.Severity;
import io.sluice.core.lint.LintReport;
import io.sluice.core.lint.Linter;
import io.sluice.core.plan.Connections;
import io.sluice.core.plan.StreamExpansion;
import io.sluice.core.plan.StreamPreflight;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.LoadResult;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.SpecLoader;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.toolkit.Redactor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * {@code sluice lint --connect}: the offline checks, then, for each spec without errors, a connection to every
 * server it names to check what only the servers know: that each source and target exists and may be read or written,
 * that every source column has a target column, and that each column's type converts. Findings point at the
 * stream's {@code table:} (or {@code query:}) line.
 *
 * <p>It reads catalog metadata only, the first steps of {@code sluice plan}: no partition planning (which may scan
 * data), no snapshot, nothing written to a configured server. An {@code embedded:} connection starts the local server
 * as {@code sluice plan} does, creating its database (and running its init-script) the first time. Specs are loaded
 * as for a run, so an unset variable or an unreadable {@code ${file:...}} is an error, not a note: connecting needs
 * the real secrets.
 */
public final class ConnectedLinter {
    /** A connector threw something other than its own exception while being checked: a connector bug. */
    public static final String CONNECTOR_FAILED = RunnerCode.CONNECT001.name();

    private final ConnectorRegistry registry;
    private final Environment environment;
    private final Path stateDirectory;

    public ConnectedLinter(ConnectorRegistry registry, Environment environment, Path stateDirectory) {
        this.registry = requireNonNull(registry, "registry is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
    }

    /** Lints files and directories like {@link Linter#lint}, then checks each error-free spec against its servers. */
    public LintReport lint(List<Path> paths) {
        requireNonNull(paths, "paths is null");
        // The offline linter finds the files and reports unreadable paths; each file is then loaded again as for a
        // run, whose diagnostics replace the offline ones (they differ only where a run needs real secrets).
        LintReport offline = new Linter(registry, environment).lint(paths);
        Set<String> files = new HashSet<>(offline.files());
        List<Diagnostic> diagnostics = new ArrayList<>(offline.diagnostics().stream()
                .filter(d -> !files.contains(d.position().file()))
                .toList());
        SpecLoader loader = new SpecLoader(registry, environment, SpecLoader.Mode.RUN);
        for (String file : offline.files()) {
            LoadResult loaded = loader.load(Path.of(file));
            diagnostics.addAll(loaded.diagnostics());
            if (!loaded.hasErrors() && loaded.spec().isPresent()) {
                diagnostics.addAll(check(loaded.spec().get(), file));
            }
        }
        return new LintReport(offline.files(), diagnostics);
    }

    private List<Diagnostic> check(PipelineSpec spec, String file) {
        EndpointKeys keys;
        try {
            keys = EndpointKeys.read(file, Files.readString(Path.of(file), StandardCharsets.UTF_8));
        } catch (IOException e) {
            keys = EndpointKeys.read(file, ""); // it was just read; positions fall back to source:/target:
        }
        Findings findings = new Findings(new Redactor(spec.secrets()));
        try (Connections connections = new Connections(registry, spec, stateDirectory)) {
            for (StreamSpec stream : spec.streams()) {
                Position sourceAt = keys.source(stream);
                for (StreamSpec table : expand(stream, connections, sourceAt, findings)) {
                    checkStream(table, connections, sourceAt, keys.target(stream), findings);
                }
            }
        } catch (RuntimeException e) {
            // Closing failed after the checks ran: the connector's bug, reported once for the file.
            findings.unexpected(new Position(file, 1, 1), "closing the connections", e);
        }
        return findings.list;
    }

    /** The streams a table pattern stands for, with a note saying how many tables it matched; an error if none. */
    private static List<StreamSpec> expand(StreamSpec stream, Connections connections, Position sourceAt,
                                           Findings findings) {
        try {
            Optional<List<StreamSpec>> pattern = StreamExpansion.expand(stream, connections);
            if (pattern.isEmpty()) {
                return List.of(stream);
            }
            findings.note(sourceAt, RunnerCode.CONNECT002.name(), "stream '" + stream.name() + "': the pattern "
                    + "matches " + pattern.get().size() + " table(s): " + StreamExpansion.names(pattern.get()));
            return pattern.get();
        } catch (ConnectorException e) {
            findings.add(sourceAt, e.code(), "stream '" + stream.name() + "', source: " + e.getMessage(), e.fix());
        } catch (SluiceException e) {
            findings.add(sourceAt, e.code(), e.getMessage(), e.fix());
        } catch (RuntimeException e) {
            findings.unexpected(sourceAt, "stream '" + stream.name() + "', source", e);
        }
        return List.of();
    }

    /**
     * The planner's own preflight ({@link StreamPreflight}), every refusal collected at the side it is about (the
     * columns at the target's table), with the notes of what the load will do.
     */
    private void checkStream(StreamSpec stream, Connections connections, Position sourceAt, Position targetAt,
                             Findings findings) {
        String where = "stream '" + stream.name() + "'";
        Optional<StreamPreflight.Checked> checked = StreamPreflight.check(stream, connections, 1,
                (side, subject, problem) -> {
                    Position at = side == StreamPreflight.Side.SOURCE ? sourceAt : targetAt;
                    if (problem instanceof ConnectorException e) {
                        findings.add(at, e.code(), where + ", " + subject + ": " + e.getMessage(), e.fix());
                    } else if (problem instanceof SluiceException e) {
                        findings.add(at, e.code(), side == StreamPreflight.Side.COLUMNS ? e.getMessage()
                                : where + ", " + side.spelled() + ": " + e.getMessage(), e.fix());
                    } else {
                        findings.unexpected(at, where + ", " + side.spelled(), (RuntimeException) problem);
                    }
                });
        // What a run plans, so a missing table with create: if-missing is a note, and so on.
        checked.ifPresent(c -> c.load().notes().forEach(note -> findings.note(targetAt, RunnerCode.CONNECT002.name(),
                where + ", target: " + note)));
        // Several readers of one moment: what the source needs to take it (a lock's privilege, say).
        // As the planner asks it: one reader when the stream is read whole, else the degree (the source knows when
        // even one needs a lock).
        checked.filter(c -> stream.consistency() == Consistency.SNAPSHOT)
                .ifPresent(c -> {
                    try {
                        c.source().checkSnapshot(stream.distribution().method() == DistributionMethod.NONE
                                ? 1 : stream.effectiveDegree(Runtime.getRuntime().availableProcessors()));
                    } catch (ConnectorException e) {
                        if (findings.first(e.code() + " " + e.getMessage())) {
                            findings.add(sourceAt, e.code(), where + ", source: " + e.getMessage(), e.fix());
                        }
                    } catch (RuntimeException e) {
                        findings.unexpected(sourceAt, where + ", source", e);
                    }
                });
        // A stream that follows changes: what the run checks before it creates the slot (wal_level, a free slot,
        // the REPLICATION attribute, a key on every table). Whether the slot exists is the ledger's business.
        checked.filter(c -> c.source().changes().isPresent()).ifPresent(c -> {
            try {
                c.source().changes().orElseThrow().checkChanges(false);
            } catch (ConnectorException e) {
                // The tables of a pattern share their server's refusals (wal_level, say): said once.
                if (findings.first(e.code() + " " + e.getMessage())) {
                    findings.add(sourceAt, e.code(), where + ", source: " + e.getMessage(), e.fix());
                }
            } catch (RuntimeException e) {
                findings.unexpected(sourceAt, where + ", source", e);
            }
        });
    }

    /** Collects diagnostics (errors, and notes on what the load will do) with every message and fix redacted: connector messages may echo a URL. */
    private static final class Findings {
        private final Redactor redactor;
        private final List<Diagnostic> list = new ArrayList<>();
        private final Set<String> seen = new HashSet<>();

        Findings(Redactor redactor) {
            this.redactor = requireNonNull(redactor, "redactor is null");
        }

        void add(Position at, String code, String message, Optional<String> fix) {
            list.add(new Diagnostic(Severity.ERROR, code, at, redactor.redact(message), fix.map(redactor::redact)));
        }

        /** Whether {@code finding} is new for this file. */
        boolean first(String finding) {
            return seen.add(finding);
        }

        void note(Position at, String code, String message) {
            list.add(new Diagnostic(Severity.NOTE, code, at, redactor.redact(message), Optional.empty()));
        }

        void unexpected(Position at, String what, RuntimeException e) {
            add(at, CONNECTOR_FAILED, what + ": the connector failed unexpectedly: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()),
                    Optional.of("run 'sluice plan' on this spec for the full error; if it persists, report it to "
                            + "the connector's maintainers"));
        }
    }
}
