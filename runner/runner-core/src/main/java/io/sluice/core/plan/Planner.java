package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.diag.Position;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.spec.IncrementalSpec;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.RowWindow;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.Target;
import io.sluice.spi.write.TargetTable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Turns a spec into a plan by asking the connectors: this is the preflight. It reads metadata only and writes
 * nothing, so every failure here exits 4 (preflight) with nothing half-written.
 */
public final class Planner {
    /** Largest first, so a small partition never leaves a worker idle while a big one runs alone at the end. */
    private static final Comparator<SourcePartition> LARGEST_FIRST =
            Comparator.comparingLong(SourcePartition::estimatedRows).reversed();

    private final int availableCores;
    private final PlanOptions options;
    private final boolean joined;

    public Planner(int availableCores) {
        this(availableCores, PlanOptions.DEFAULT);
    }

    public Planner(int availableCores, PlanOptions options) {
        if (availableCores <= 0) {
            throw new IllegalArgumentException("availableCores must be positive");
        }
        this.availableCores = availableCores;
        this.options = requireNonNull(options, "options is null");
        this.joined = options.joined();
    }

    public BoundPlan plan(PipelineSpec spec, Connections connections) {
        requireNonNull(spec, "spec is null");
        requireNonNull(connections, "connections is null");
        List<StreamPlan> streams = new ArrayList<>();
        Map<String, StreamBinding> bindings = new HashMap<>();
        for (StreamSpec stream : spec.streams()) {
            Optional<List<StreamSpec>> pattern;
            try {
                pattern = StreamExpansion.expand(stream, connections);
            } catch (ConnectorException e) {
                throw new SluiceException(ErrorKind.PREFLIGHT, e.code(), "stream '" + stream.name() + "': "
                        + e.getMessage(), e.fix().orElse(null), e);
            }
            if (pattern.isEmpty()) {
                planStream(spec.name(), stream, connections, spec.ledger(), streams, bindings);
                continue;
            }
            List<StreamSpec> expanded = pattern.get();
            // The tables of a pattern are planned together: every table that cannot be loaded is listed at once.
            List<SluiceException> refused = new ArrayList<>();
            for (StreamSpec table : expanded) {
                try {
                    planStream(spec.name(), table, connections, spec.ledger(), streams, bindings);
                } catch (SluiceException e) {
                    refused.add(e);
                }
            }
            if (!refused.isEmpty()) {
                SluiceException first = refused.getFirst();
                throw new SluiceException(first.kind(), first.code(), "stream '" + stream.name() + "': "
                        + refused.size() + " of " + expanded.size() + " matched tables cannot be loaded:\n  "
                        + refused.stream().map(SluiceException::getMessage).collect(Collectors.joining("\n  ")),
                        first.fix().orElse(null), first);
            }
        }
        ConnectionBudget.check(spec, streams, connections);
        return new BoundPlan(new PipelinePlan(spec, AcrossStreamsPlanner.plan(streams, bindings)), bindings);
    }

    private void planStream(String specName, StreamSpec spec, Connections connections, boolean ledgerOn,
                            List<StreamPlan> plans,
                            Map<String, StreamBinding> bindings) {
        String where = "stream '" + spec.name() + "'";
        boolean schemaOnly = options.scope() == LoadRequest.Scope.SCHEMA_ONLY;
        if (schemaOnly && spec.incremental().isPresent()) {
            throw schemaOnlyRefused(where, "reads incrementally (incremental:): a run that copies no rows would "
                    + "record how far it read");
        }
        StreamSpec stream = schemaOnly ? spec.forSchemaOnly() : spec;
        try {
            SourceCapabilities sourceCan = connections.factory(stream.source().connection()).sourceCapabilities();
            TargetCapabilities targetCan = connections.factory(stream.target().connection()).targetCapabilities();
            int degree = stream.effectiveDegree(availableCores);
            // The checks lint --connect runs too; the first refusal ends the plan.
            StreamPreflight.Checked checked = StreamPreflight.check(stream, connections, degree,
                    (target, check) -> lastCheckValue(specName, stream.name(), target, check, ledgerOn),
                    options.fullRefresh(), options.scope(),
                    (side, subject, problem) -> {
                        // The refusal points at the part of the spec it is about, as lint does.
                        Position at = switch (side) {
                            case SOURCE -> stream.source().position();
                            case TARGET -> stream.target().position();
                            case COLUMNS -> stream.position();
                        };
                        if (problem instanceof ConnectorException e) {
                            // Whatever the cause (a server that is down included), nothing was written yet.
                            throw new SluiceException(ErrorKind.PREFLIGHT, e.code(), where + ": " + e.getMessage(),
                                    e.fix().orElse(null), e).at(at);
                        }
                        if (problem instanceof SluiceException e && e.position().isEmpty()) {
                            throw e.at(at);
                        }
                        throw (RuntimeException) problem;
                    }).orElseThrow();
            Source source = checked.source();
            Target target = checked.target();
            if (schemaOnly && source.changes().isPresent()) {
                throw schemaOnlyRefused(where, "follows changes (changes:): a run that copies no rows has no moment "
                        + "to follow them from");
            }
            if (joined) {
                refuseJoining(stream, sourceCan, targetCan, ledgerOn, source.describe(), target.describe());
            }
            LoadPlan load = checked.load();
            TargetTable table = load.table();
            Optional<RelationIdentity> writes = checked.writes();
            java.util.Set<RelationIdentity> reads = checked.reads();
            ColumnMappingPlan mapping = checked.mapping();
            List<ColumnPair> pairs = mapping.copied();
            SourceProjection projection = checked.projection();
            // One transaction is one process's: a joined run shares partitions instead.
            // A replace loads its new table the same way: the target empties that table in the load's transaction.
            boolean replacing = !joined && stream.load().writesWholeContent()
                    && targetCan.replacesInOneTransaction();
            // A truncate load by one worker is one transaction (below), all or nothing: partitions would serve no
            // parallel worker and no resume, and each boundary stalls both servers (lineitem SF 1: the whole table
            // took 0.94x the wall time of six partitions, docs/benchmarks.md). So the source is read whole, as
            // method none plans it, without running the spec's method's planning queries for nothing.
            Distribution distribution = replacing && degree == 1 ? Distribution.none() : stream.distribution();
            Optional<Ledger> ledger = Optional.empty();
            if (ledgerOn) {
                ledger = target.ledgerStore().map(Ledger::new);
                if (ledger.isEmpty()) {
                    throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.LEDGER001, where + ": the target "
                            + target.describe() + " keeps no run ledger", "set ledger: off in the spec (runs then "
                            + "cannot be resumed)");
                }
            }
            StreamBinding binding = new StreamBinding(source, target, checked.planned(), ledger, projection, sourceCan.readerThreads(),
                    reads, writes, stream.target().connection());
            Optional<RowWindow> window = stream.incremental().flatMap(IncrementalSpec::cursor).isEmpty()
                    ? Optional.empty()
                    : IncrementalWindow.of(specName, stream, source, ledger, options.fullRefresh(), where);
            // A run that writes no rows reads none: the load creates what it creates, with nothing to copy.
            List<PartitionPlan> partitions = schemaOnly ? List.of() : partitions(source, projection,
                    new PlanRequest(distribution, degree, stream.rowsPerPartition(), window, stream.incremental()
                            .map(i -> i.newFiles() || i.newSnapshots()).orElse(false)), binding);
            Map<String, String> startMarks = window.map(IncrementalWindow::marks).orElse(Map.of());
            if (stream.incremental().map(IncrementalSpec::newFiles).orElse(false)) {
                IncrementalWindow.Files files = IncrementalWindow.newFiles(specName, stream, partitions, binding,
                        ledger, options.fullRefresh(), where);
                partitions = files.kept();
                startMarks = files.marks();
            }
            if (stream.incremental().map(IncrementalSpec::newSnapshots).orElse(false)) {
                IncrementalWindow.Files added = IncrementalWindow.newSnapshots(specName, stream, partitions, source,
                        ledger, options.fullRefresh(), where);
                partitions = added.kept();
                startMarks = added.marks();
            }
            if (stream.consistency() == Consistency.SNAPSHOT && sourceCan.sharesSnapshot()) {
                source.checkSnapshot(Math.min(degree, Math.max(1, partitions.size())));
            }
            List<Column> targetColumns = pairs.stream().map(ColumnPair::target).toList();
            Optional<String> pinned = source.tableVersions().isEmpty() ? Optional.empty()
                    : Optional.of(source.tableVersions().get().describePinned());
            String snapshot = pinned.isPresent()
                    ? "version (every partition, and a resumed run, reads " + pinned.get() + ", fixed at plan)"
                    : stream.consistency() != Consistency.SNAPSHOT
                    ? "none (each partition reads what is committed when it starts)"
                    : sourceCan.sharesSnapshot()
                    ? "snapshot (every partition reads one snapshot exported when the run starts)"
                    : "none (" + source.describe() + " has no snapshot to share: each partition reads what is there "
                    + "when it starts)";
            // One worker writes everything anyway, so one transaction costs no parallelism and makes the load
            // all-or-nothing (and lets the target skip work for rows no one else can see yet).
            boolean oneTransaction = replacing && (degree == 1 || partitions.size() <= 1);
            Optional<String> transactionStatement = oneTransaction
                    ? Optional.of(checked.planned().replacingWriteStatement(targetColumns, projection.format()))
                    : Optional.empty();
            plans.add(new StreamPlan(stream, degree, source.describe(), table.qualifiedName(), pairs,
                    ProjectionPlan.of(projection, mapping.notes()), partitions, snapshot, partitions, ledgerOn,
                    oneTransaction,
                    checked.planned().writeStatement(targetColumns, projection.format()), transactionStatement,
                    mapping.leftOut(), window, startMarks, load));
            bindings.put(stream.name(), binding);
        } catch (ConnectorException e) {
            // Whatever the cause (a server that is down included), nothing was written yet: a preflight failure,
            // exit 4, which schedulers may retry.
            throw new SluiceException(ErrorKind.PREFLIGHT, e.code(), where + ": " + e.getMessage(),
                    e.fix().orElse(null), e);
        }
    }

    private static SluiceException schemaOnlyRefused(String where, String why) {
        return new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN011, where + ": --schema-only, and the "
                + "stream " + why + "; nothing was written", "run --schema-only with a spec without that stream's "
                + "changes: and incremental:, then run the spec as it is");
    }

    /**
     * The value check {@code check} found in the stream's last done run, from the target's ledger; none without a
     * ledger or before the first done run. A ledger that cannot be read fails the plan: a bound must not loosen
     * quietly.
     */
    private static Optional<Long> lastCheckValue(String specName, String stream, Target target, String check,
                                                 boolean ledgerOn) {
        if (!ledgerOn) {
            return Optional.empty();
        }
        try {
            Optional<LedgerStore> store = target.ledgerStore();
            if (store.isEmpty()) {
                return Optional.empty();
            }
            return new Ledger(store.get()).lastMark(specName, stream, Ledger.TARGET_MARKS
                    + LoadMarks.CHECK_PREFIX + check).map(Long::parseLong);
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "stream '" + stream + "': reading the last done run's value of check '"
                    + check + "'");
        } catch (NumberFormatException e) {
            return Optional.empty(); // a mark no check of this version wrote
        }
    }

    /** The source's partitions for {@code request}, largest first, with the statement that reads each. */
    private static List<PartitionPlan> partitions(Source source, SourceProjection projection, PlanRequest request,
                                                  StreamBinding binding) throws ConnectorException {
        List<SourcePartition> planned = new ArrayList<>(source.plan(request));
        planned.sort(LARGEST_FIRST);
        List<PartitionPlan> partitions = new ArrayList<>();
        for (SourcePartition partition : planned) {
            partitions.add(binding.bind(PartitionPlan.of(partitions.size(), partition,
                    source.readStatement(partition, projection)), partition));
        }
        return partitions;
    }

    /**
     * What a joined run cannot keep, refused before anything is written: one process's snapshot (a PostgreSQL snapshot
     * lives only as long as the session that exported it, so the others could not read it after that process died),
     * and a run without a ledger (the ledger is what the processes share).
     */
    private static void refuseJoining(StreamSpec stream, SourceCapabilities sourceCan, TargetCapabilities targetCan,
                                      boolean ledgerOn, String source, String target) {
        if (!ledgerOn) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN003, "stream '" + stream.name()
                    + "': --join shares the run's partitions through the ledger, and the spec says ledger: off",
                    "remove ledger: off, or run without --join");
        }
        if (!targetCan.joinedRuns()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN003, "stream '" + stream.name()
                    + "': " + target + " cannot be loaded by several processes of one run (its connector does not "
                    + "declare joined runs)", "run one process without --join (its degree still copies in parallel)");
        }
        if (stream.load().finishesAfterLastPartition()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN003, "stream '" + stream.name()
                    + "': a joined run cannot yet share a load with steps after the last partition (load-mode "
                    + "replace, delete-missing, indexes: rebuild)", "run one process without --join (its degree "
                    + "still copies in parallel)");
        }
        if (stream.consistency() == Consistency.SNAPSHOT && sourceCan.sharesSnapshot()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN003, "stream '" + stream.name()
                    + "': a joined run cannot read one snapshot of " + source + ": the snapshot lives only as long "
                    + "as the session of the process that exported it",
                    "set consistency: none on the stream (each partition then reads what is committed when it "
                            + "starts), or run one process without --join");
        }
    }
}
