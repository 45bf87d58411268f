package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.IndexDefinition;
import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.copy.AfterCopy;
import io.sluice.connector.postgres.copy.BeforeCopy;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.LeftoverSessions;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadCheck;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.LoadedRowsCheck;
import io.sluice.spi.write.TargetTable;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * One stream's load of a PostgreSQL table beyond its partitions' COPY, planned once at preflight as a list of
 * {@link LoadStep}s that the load mode chooses here, in {@link #plan}, and nowhere else: {@link CreateTable},
 * {@link ShadowSwap} (replace), {@link MergeStaging} (merge), {@link IndexRebuild}, {@link SequenceReset}; the
 * table's foreign keys to the run's other tables are {@link RunForeignKeys}. Every step that changes the database
 * runs in a transaction that also writes its mark, so after a crash at any moment the marks say exactly what
 * happened, and a resumed run does the rest (a step already marked is skipped; a step that is not marked never
 * committed).
 */
public final class PostgresLoad {
    private final LoadTable table;
    private final List<LoadStep> steps;
    private final RunForeignKeys runKeys;
    private final Optional<ShadowSwap> replace;
    private final Optional<MergeStaging> merge;
    private final List<String> statements = new ArrayList<>();
    private final List<String> notes;

    private final List<String> shapeChanges;
    /** This process claimed the table alone, not as one of a joined run's processes. */
    private volatile boolean alone;
    private final Optional<RejectsStep> rejects;
    /**
     * Whether this process ran the preparing transaction ({@link #begin}): when it did not, and nothing before it ran
     * this run's load or shares it now, the stream has no marks a step's finish reads, and the finish does not read
     * them.
     */
    private volatile boolean begun;
    /** The checks' values when a truncate in one transaction ran them before its commit; marked at the finish. */
    private volatile java.util.Map<String, Long> checkedBeforeCommit;

    private PostgresLoad(LoadTable table, List<LoadStep> steps, RunForeignKeys runKeys, Optional<ShadowSwap> replace,
                         Optional<MergeStaging> merge, List<String> notes, List<String> shapeChanges,
                         Optional<RejectsStep> rejects) {
        this.table = requireNonNull(table, "table is null");
        this.rejects = requireNonNull(rejects, "rejects is null");
        List<LoadStep> all = new ArrayList<>();
        rejects.ifPresent(all::add); // made before anything else, so a partition always finds it
        all.addAll(requireNonNull(steps, "steps is null"));
        this.steps = List.copyOf(all);
        this.runKeys = requireNonNull(runKeys, "runKeys is null");
        this.replace = requireNonNull(replace, "replace is null");
        this.merge = requireNonNull(merge, "merge is null");
        this.notes = List.copyOf(requireNonNull(notes, "notes is null"));
        this.shapeChanges = List.copyOf(requireNonNull(shapeChanges, "shapeChanges is null"));
        for (LoadStep step : this.steps) {
            step.describe(statements);
        }
        if (replace.isEmpty()) {
            CheckRun.describe(table.request().checks(), table.quoted(), "before the data goes live (a truncate in "
                    + "one transaction: before its commit; else after the last partition)", statements);
        }
    }

    /**
     * Plans the load of {@code existing} with its columns {@code columnsGiven} (empty: the table is missing and
     * {@code create: if-missing} creates it with the source's columns {@code columnsGiven}), refusing what the target
     * cannot do before anything is written. {@code sourceColumns}: for an existing table, the source's columns as a
     * created table would have them ({@link ShapeChange}). {@code ahead}: what
     * was read of the table ahead of planning, with the other tables of its pattern, if it was. {@code createsSchema}:
     * a created table's missing schema is created with it ({@code objects: all}) rather than refused.
     */
    public static PostgresLoad plan(PostgresConnections connections, PostgresLedgerStore ledger, LoadRequest request,
                             QualifiedName name, Optional<ResolvedTable> existing, List<Column> columnsGiven,
                             List<Column> sourceColumns, CreateTable.TypeDefinitions types, List<String> primaryKey,
                             TableLocks locks, Connection c, Optional<TableDefinition> sourceDefinition,
                             Optional<TargetAhead> ahead, boolean createsSchema, BeforeTable before)
            throws SQLException, ConnectorException {
        PostgresCatalog catalog = new PostgresCatalog(c);
        TargetCatalog target = new TargetCatalog(c);
        String schema = existing.map(ResolvedTable::schema).orElseGet(() -> name.schema().orElse(null));
        if (schema == null) {
            schema = target.currentSchema();
        }
        String tableName = existing.map(ResolvedTable::name).orElse(name.name());
        LoadMode mode = request.mode();
        // A definition comes with a table created for an append or a truncate; a merge needs its key at once and a
        // replace builds a shadow, so those create columns only (said in the plan).
        boolean defines = existing.isEmpty() && sourceDefinition.isPresent()
                && (mode == LoadMode.APPEND || mode == LoadMode.TRUNCATE);
        Optional<CreatedDefinition> definition = defines ? Optional.of(new CreatedDefinition(sourceDefinition.get(),
                schema, tableName, primaryKey.isEmpty())) : Optional.empty();
        // A created table with its definition keeps computed columns computed (the copy leaves them to the target).
        List<Column> columns = existing.isPresent() || defines ? columnsGiven : CreateTable.columnsOf(columnsGiven);
        ShapeChange.Planned shape = existing.isPresent()
                ? ShapeChange.plan(request.schemaChanges(), request.newRowsOnly(), existing.get(),
                SqlQuote.identifier(schema) + "." + SqlQuote.identifier(tableName), sourceColumns, columns, c, types)
                : new ShapeChange.Planned(columns, List.of());
        columns = shape.columns();
        LoadTable table = new LoadTable(connections, ledger, request, schema, tableName, existing, columns, locks);
        ShapeChange shapeChange = new ShapeChange(table, shape.changes(), mode == LoadMode.REPLACE);
        Set<String> names = columns.stream().map(Column::name).collect(Collectors.toSet());
        for (String column : primaryKey) {
            table.requireColumn(names, column, "primary-key");
        }
        List<IndexDefinition> indexes = existing.isEmpty() ? List.of() : ahead.isPresent()
                ? ahead.get().indexes() : target.indexes(existing.get().oid());
        Optional<MergeStaging> merge = mode == LoadMode.MERGE
                ? Optional.of(MergeStaging.plan(table, indexes, primaryKey, shape.unfed())) : Optional.empty();
        List<String> notes = new ArrayList<>(shape.notes());
        IndexRebuild indexRebuild = IndexRebuild.plan(table, target, catalog, indexes,
                merge.map(MergeStaging::key).orElse(List.of()), notes);
        RunForeignKeys runKeys = new RunForeignKeys(table, definition, ahead.map(TargetAhead::table));
        CreateTable create = new CreateTable(table, primaryKey, definition, runKeys,
                merge.map(m -> List.of(m.keyConstraint())).orElse(List.of()),
                mode == LoadMode.APPEND || mode == LoadMode.TRUNCATE, createsSchema, before);
        if (existing.isEmpty()) {
            create.check(catalog, target, types, notes, ahead.flatMap(TargetAhead::schema));
            notes.add("table " + table.quoted() + " does not exist: the load creates it (create: if-missing)"
                    + (definition.isPresent() ? " with the source table's definition (definition: full)"
                    : sourceDefinition.isPresent() ? " with its columns only: a " + mode.name().toLowerCase(
                    Locale.ROOT) + " load creates no keys, indexes or foreign keys (use truncate or append for a "
                    + "first copy that carries them)" : ""));
        } else if (!primaryKey.isEmpty()) {
            notes.add("primary-key is left alone: it applies only to a table the load creates");
        }
        Optional<ShadowSwap> replace = Optional.empty();
        if (mode == LoadMode.REPLACE) {
            replace = Optional.of(new ShadowSwap(table, create, indexes, shapeChange));
            if (existing.isPresent()) {
                replace.get().check(target, existing.get());
            }
        }
        // The one place the mode decides the steps, in the order they describe, prepare and finish.
        List<LoadStep> steps = switch (mode) {
            case REPLACE -> List.of(replace.orElseThrow());
            case MERGE -> List.of(shapeChange, create, merge.orElseThrow(), indexRebuild, new SequenceReset(table));
            case APPEND, TRUNCATE -> List.of(shapeChange, create, indexRebuild, new SequenceReset(table));
        };
        Optional<RejectsStep> rejects = request.rejectsTable().isEmpty() ? Optional.empty()
                : Optional.of(RejectsStep.plan(request.rejectsTable().get(), schema, tableName,
                request.beforeHook(), c));
        if (rejects.isPresent() && mode == LoadMode.MERGE) {
            notes.add("rejects: a merge sets aside the rows its COPY into the staging table refuses and those the "
                    + "reader finds; a row the merge's INSERT refuses (a constraint) still fails its partition");
        }
        return new PostgresLoad(table, steps, runKeys, replace, merge, notes, shapeChange.summary(), rejects);
    }

    public String quoted() {
        return table.quoted();
    }

    /** The table and the tables a load derives from it (shadow, keys): what a run's sessions lock. */
    public static List<String> relationsOf(String table) {
        return LoadTable.relationsOf(table);
    }

    /** Whether the table is there once {@link #begin} is done: it was, or begin made it (a replace's comes later). */
    public boolean tableAfterBegin() {
        return table.existing().isPresent() || replace.isEmpty();
    }

    /** Whether the table exists now or is created by this load. */
    public boolean creates() {
        return table.existing().isEmpty();
    }

    public LoadPlan loadPlan() {
        return new LoadPlan(new TargetTable(table.quoted(), table.columns()), statements, notes, shapeChanges,
                rejects.flatMap(RejectsStep::identity));
    }

    /** The rejects table, quoted, when the load sets rows aside. */
    public Optional<String> rejectsTable() {
        return rejects.map(RejectsStep::quoted);
    }

    public void waitForLocks(TableLocks locks) {
        table.waitForLocks(locks);
    }

    /** The table the partitions' COPY writes: the shadow of a replace, a merge's staging table, else the target. */
    public String copyTable() {
        return replace.isPresent() ? table.shadowQuoted() : merge.isPresent() ? MergeStatements.STAGING
                : table.quoted();
    }

    /** Whether the partitions' COPY writes the target table itself (not a replace's shadow or a merge's staging). */
    public boolean copiesIntoTarget() {
        return replace.isEmpty() && merge.isEmpty();
    }

    /** The shadow a replace fills (the run's alone, emptied and frozen as it likes); empty for other modes. */
    public Optional<QualifiedName> shadow() {
        return replace.map(r -> table.shadow());
    }

    /**
     * The load's own work in a partition's transaction before its COPY: a merge stages ({@link MergeStatements#before});
     * a replace's shadow needs nothing; empty: the target's default (its lock, taken visibly).
     */
    public Optional<BeforeCopy> beforeCopy(List<Column> copied) {
        if (merge.isPresent()) {
            return Optional.of(merge.get().before(copied));
        }
        return replace.isPresent() ? Optional.of(BeforeCopy.NOTHING) : Optional.empty();
    }

    /** The load's work at a partition's commit: a merge applies its staged rows ({@link MergeStatements#after}). */
    public AfterCopy afterCopy(List<Column> copied) throws ConnectorException {
        return merge.isPresent() ? merge.get().after(copied) : AfterCopy.NOTHING;
    }

    /** Called when this process claims the table for itself (not a joined run's shared claim). */
    public void holdsTableAlone() {
        alone = true;
        replace.ifPresent(ShadowSwap::holdsTableAlone);
    }

    /** Ends a replace's hold on the old table, if it is still held (the swap ends it by committing). */
    public void releaseGuard() {
        replace.ifPresent(ShadowSwap::releaseGuard);
    }

    public LoadPlan.AcrossStreams planAcrossStreams(Map<String, String> copies) throws ConnectorException {
        return runKeys.plan(copies);
    }

    public void beforeStreams(LoadMarks marks) throws ConnectorException {
        runKeys.beforeStreams(marks);
    }

    /**
     * Prepares the target for the run's rows; {@code endLeftovers}: this run holds the table's claim alone, so it first
     * ends what a killed process of this run, or of an unfinished earlier run of the stream, left running on the
     * table or the tables the load derives from it ({@link LeftoverSessions}), waiting at most {@code patience}.
     */
    public void begin(LoadMarks marks, boolean endLeftovers, Duration patience) throws ConnectorException {
        Map<String, Map<String, String>> earlier = marks.unfinishedEarlier();
        if (endLeftovers) {
            List<String> runIds = new ArrayList<>();
            if (marks.ranBefore()) { // a fresh run's id names no session of another process
                runIds.add(marks.runId());
            }
            runIds.addAll(earlier.keySet());
            LeftoverSessions.end(table.connections(), table.schema(), relationsOf(table.name()), runIds, patience);
        }
        IndexRebuild.restoreEarlierRuns(table, earlier);
        for (LoadStep step : steps) {
            step.hold(marks);
        }
        if (steps.stream().noneMatch(LoadStep::begins)) {
            return;
        }
        begun = true;
        table.inTransaction("preparing the load of " + table.quoted(), (c, tx) -> {
            Map<String, String> done = marks.reading().apply(tx);
            TargetCatalog target = new TargetCatalog(c);
            for (LoadStep step : steps) {
                step.begin(c, target, done, marks, tx);
            }
        });
    }

    /** After the last partition: each step's finish (indexes, keys, deletes, sequences, the swap); each once. */
    /** The steps' finish; {@code check} sees the loaded rows before a replace's swap, else after the steps. */
    public void finish(LoadMarks marks, LoadedRowsCheck check) throws ConnectorException {
        if (alone) {
            finishSteps(marks, check);
            return;
        }
        // The processes of a joined run reach this together: one finishes while the others wait on its session lock
        // (gone with its session if it is killed), then read its marks and skip what it did.
        Connection lock = table.connections().open("finishing " + table.quoted());
        try {
            try (java.sql.PreparedStatement p = lock.prepareStatement("SELECT pg_advisory_lock(hashtextextended(?, "
                    + "0))")) {
                p.setString(1, "sluice finish " + table.quoted());
                p.execute();
            }
            finishSteps(marks, check);
        } catch (SQLException e) {
            throw table.connections().errors().translate(e, PostgresErrors.Phase.DESCRIBE, "waiting for another "
                    + "process of the run to finish " + table.quoted());
        } finally {
            PostgresConnections.closeQuietly(lock);
        }
    }

    private void finishSteps(LoadMarks marks, LoadedRowsCheck check) throws ConnectorException {
        // The marks a finish reads are those a begin wrote: none when no begin ran, in this process or before it.
        Map<String, String> done = alone && !begun && !marks.ranBefore() ? Map.of() : table.read(marks);
        for (LoadStep step : steps) {
            if (step instanceof ShadowSwap swap) {
                swap.finish(marks, done, check); // before its swap
            } else {
                step.finish(marks, done);
            }
        }
        List<LoadCheck> checks = table.request().checks();
        if (replace.isPresent()) {
            return; // a replace checks its new table before the swap
        }
        check.check(Optional.empty());
        if (checks.isEmpty()) {
            return;
        }
        java.util.Map<String, Long> before = checkedBeforeCommit;
        table.inTransaction("checking " + table.quoted(), (c, tx) -> CheckRun.mark(before != null ? before
                : CheckRun.evaluate(c, checks, table.quoted(), "after the last partition", "the rows are loaded and "
                + "the run is failed, not done"), marks, tx));
    }

    /**
     * A stream's {@code before:} or {@code after:} statements (or the run's, carried by this stream), in one
     * transaction with their mark {@code hook-<phase>}: committed together, so a hook has run exactly when its mark
     * says so. Reading the marks takes the stream's ledger row, so two processes of a joined run cannot both find it
     * unmarked. Returns whether it ran now. A statement PostgreSQL will not run in a transaction block (VACUUM,
     * CREATE INDEX CONCURRENTLY) is refused by the server, with its message.
     */
    public boolean runHook(String phase, List<String> statements, LoadMarks marks) throws ConnectorException {
        String mark = "hook-" + phase;
        boolean[] ran = {false};
        table.inTransaction("running the " + phase + " hook", (c, tx) -> {
            if (marks.reading().apply(tx).containsKey(mark)) {
                return;
            }
            for (int i = 0; i < statements.size(); i++) {
                try {
                    LoadTable.execute(c, statements.get(i));
                } catch (SQLException e) {
                    throw table.connections().errors().translate(e, PostgresErrors.Phase.COPY, phase + " hook, "
                            + "statement " + (i + 1) + " of " + statements.size() + " (" + statements.get(i) + ")");
                }
            }
            marks.writing(mark, java.time.Instant.now().toString()).apply(tx);
            ran[0] = true;
        });
        return ran[0];
    }

    /**
     * A truncate in one transaction: the checks, on that transaction's connection before it commits, so a failure
     * rolls the whole load back and the old rows stay.
     */
    public void beforeCommit(Connection c) throws SQLException, ConnectorException {
        List<LoadCheck> checks = table.request().checks();
        if (replace.isEmpty() && !checks.isEmpty()) {
            checkedBeforeCommit = CheckRun.evaluate(c, checks, table.quoted(), "before the commit",
                    "nothing was committed: the old rows stay");
        }
    }

    /** After a failed stream: what the steps took away for the load (dropped indexes) is put back. */
    public void abort(LoadMarks marks) throws ConnectorException {
        Map<String, String> done = table.read(marks);
        for (LoadStep step : steps) {
            step.abort(marks, done);
        }
    }
}
