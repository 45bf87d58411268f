package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.copy.BeforeCopy;
import io.sluice.connector.postgres.copy.CopyInWriter;
import io.sluice.connector.postgres.copy.RejectsTable;
import io.sluice.connector.postgres.copy.RowScreen;
import io.sluice.connector.postgres.session.ConnectionSlot;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.connector.postgres.session.TargetOwnership;
import io.sluice.connector.postgres.write.load.BeforeTable;
import io.sluice.connector.postgres.write.load.CarriedObjects;
import io.sluice.connector.postgres.write.load.ForeignKeys;
import io.sluice.connector.postgres.write.load.PostgresLoad;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LedgeredTruncate;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadedRowsCheck;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.ReplacingLoads;
import io.sluice.spi.write.ReplacingTransaction;
import io.sluice.spi.write.SharedClaims;
import io.sluice.spi.write.TargetClaim;
import io.sluice.spi.write.TargetHooks;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A {@link PostgresTarget}'s load as {@link PostgresTarget#planLoad} decided it: the load's steps ({@link PostgresLoad}),
 * the claim on the table, and the writers: one COPY FROM STDIN transaction per partition, or all of a truncate load
 * in one ({@link ReplacingLoad}). What was decided is final; what changes later is the process's own: how long to wait
 * for locks, and in a joined run the name its sessions carry.
 */
final class PostgresPlannedLoad implements PlannedLoad {
    /**
     * A load of a table with no pages expected to bring at most this much keeps the table instead of truncating it
     * (and copies without FREEZE): TRUNCATE made four new files and dropped four at the commit, about 1.5 ms of the
     * server's time a table, where FREEZE saves a small table little.
     */
    static final long KEEP_EMPTY_BELOW_BYTES = 8L << 20;

    private final PostgresTarget target;
    private final PostgresLoad load;
    private final PostgresConnections connections;
    private final QualifiedName name;
    /** The objects of the source table's schema this stream carries ({@code objects: all}), if it does. */
    private final Optional<CarriedObjects> objects;
    /** What objects: all creates before the table: extensions, the schema's functions its definition calls. */
    private final BeforeTable before;
    private volatile RowScreen.PerTable screen; // null until the first writer with rejects asks
    /** In a joined run: the application_name of this process's sessions ({@link #claimShared(String, String)}). */
    private volatile String sessionTag;
    /** In a joined run: its id, which names the other processes' sessions too. */
    private volatile String joinedRun;

    PostgresPlannedLoad(PostgresTarget target, PostgresLoad load, Optional<CarriedObjects> objects,
                        BeforeTable before) {
        this.target = requireNonNull(target, "target is null");
        this.load = requireNonNull(load, "load is null");
        this.objects = requireNonNull(objects, "objects is null");
        this.before = requireNonNull(before, "before is null");
        this.connections = target.connections();
        this.name = target.name();
    }

    @Override
    public LoadPlan plan() {
        return load.loadPlan();
    }

    @Override
    public void waitForLocks(LockWaits waits) {
        target.waitForLocks(waits);
        load.waitForLocks(target.locks());
    }

    @Override
    public TargetClaim claim(String runId) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        TargetClaim claim = TargetOwnership.claim(connections, load.quoted(), runId, target.locks(), false);
        connections.nameSessions(TargetOwnership.applicationName(runId)); // findable, should this process be killed
        load.holdsTableAlone();
        return () -> {
            try {
                load.releaseGuard(); // a replace's hold on the old table ends with the claim, whatever happened
            } finally {
                claim.close();
            }
        };
    }

    @Override
    public Optional<SharedClaims> sharedClaims() {
        return Optional.of(this::claimShared);
    }

    /** {@link SharedClaims#claimShared}: this process's sessions are tagged with {@code holder}. */
    private TargetClaim claimShared(String runId, String holder) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(holder, "holder is null");
        String tag = TargetOwnership.sessionTag(runId, holder);
        joinedRun = runId;
        sessionTag = tag;
        TargetClaim claim = TargetOwnership.claim(connections, load.quoted(), runId, target.locks(), true);
        // Every session from here on, the ledger's included: a process that lost its leases while paused inside a
        // ledger transaction holds row locks the others can only get back by ending that session.
        connections.nameSessions(tag);
        return claim;
    }

    /** Ends the sessions of {@code holder}, a joined process this one took partitions over from. */
    @Override
    public void endAbandoned(String holder) throws ConnectorException {
        requireNonNull(holder, "holder is null");
        String runId = joinedRun;
        if (runId == null) {
            return; // not a joined process: no other process's sessions are this one's to end
        }
        TargetOwnership.endSessions(connections, TargetOwnership.sessionTag(runId, holder));
    }

    @Override
    public void begin(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        if (objects.isPresent()) {
            // A run of this one stream (or a joined process) has no before-streams step to hold them off in; where
            // it had one, none is left to drop
            objects.get().holdTriggers();
        }
        if (load.creates()) {
            before.create(); // a column's type, an index's operator class, a default's function may be theirs
        }
        // Alone on the table (not a joined run), a session of its runs still at work there is a dead process's, and
        // would race what begins now.
        load.begin(marks, sessionTag == null, target.locks().timeout());
        if (load.creates() && load.tableAfterBegin()) {
            target.table(); // created now: resolve it for the writers
        }
    }

    @Override
    public void finish(LoadMarks marks) throws ConnectorException {
        load.finish(requireNonNull(marks, "marks is null"), LoadedRowsCheck.NONE);
    }

    @Override
    public void finish(LoadMarks marks, LoadedRowsCheck check) throws ConnectorException {
        load.finish(requireNonNull(marks, "marks is null"), requireNonNull(check, "check is null"));
    }

    @Override
    public void abort(LoadMarks marks) throws ConnectorException {
        load.abort(requireNonNull(marks, "marks is null"));
    }

    @Override
    public Optional<TargetHooks> hooks() {
        return Optional.of(load::runHook);
    }

    @Override
    public LoadPlan.AcrossStreams planAcrossStreams(Map<String, String> copies) throws ConnectorException {
        LoadPlan.AcrossStreams keys = load.planAcrossStreams(requireNonNull(copies, "copies is null"));
        if (objects.isEmpty()) {
            return keys;
        }
        LoadPlan.AcrossStreams carried = objects.get().plan(copies);
        return new LoadPlan.AcrossStreams(concat(before.extensions().statements(), keys.before()),
                concat(keys.after(), carried.after()), concat(concat(keys.notes(), before.notes()),
                carried.notes()));
    }

    private static List<String> concat(List<String> first, List<String> then) {
        List<String> both = new java.util.ArrayList<>(first);
        both.addAll(then);
        return both;
    }

    @Override
    public void beginBeforeStreams(LoadMarks marks) throws ConnectorException {
        load.beforeStreams(requireNonNull(marks, "marks is null"));
        if (objects.isPresent()) {
            objects.get().holdTriggers();
        }
    }

    /** The foreign keys this run's marks of the table owe ({@link ForeignKeys}). */
    @Override
    public void finishAfterStreams(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        Map<String, String> done = target.ledger().inTransaction(marks.reading());
        if (ForeignKeys.owed(done)) {
            ForeignKeys.addRecorded(connections, target.ledger(), marks, done);
        }
    }

    /** The carried objects, after every stream's foreign keys: a partition's own key must not be taken for one. */
    @Override
    public void finishLast(LoadMarks marks) throws ConnectorException {
        if (objects.isPresent()) {
            objects.get().finish(requireNonNull(marks, "marks is null"));
        }
    }

    @Override
    public Optional<RelationIdentity> relation() throws ConnectorException {
        if (load.creates()) {
            return Optional.empty(); // nothing reads a table that does not exist yet
        }
        ResolvedTable table = target.resolve();
        try (ControlConnection control = connections.control("identifying " + table.quoted())) {
            return Optional.of(new RelationIdentity(new PostgresCatalog(control.connection())
                    .relationKey(table.oid()), table.quoted()));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot identify " + name.quoted());
        }
    }

    @Override
    public void truncate() throws ConnectorException {
        target.truncate();
    }

    @Override
    public Optional<LedgeredTruncate> ledgeredTruncate() {
        return Optional.of(target::truncate);
    }

    @Override
    public String writeStatement(List<Column> columns, CopyFormat format) {
        return copyStatement(columns, format, false);
    }

    private String copyStatement(List<Column> columns, CopyFormat format, boolean freeze) {
        return "COPY " + load.copyTable() + " (" + columns.stream().map(c -> SqlQuote.identifier(c.name()))
                .collect(Collectors.joining(", ")) + ") FROM STDIN (FORMAT "
                + (format == CopyFormat.BINARY ? "binary" : "text") + (freeze ? ", FREEZE)" : ")");
    }

    /** With FREEZE where PostgreSQL allows it: plain tables (not partitioned or foreign ones). */
    @Override
    public String replacingWriteStatement(List<Column> columns, CopyFormat format) {
        boolean plainTable = load.shadow().isPresent() // the new table
                || target.resolved().map(t -> t.relkind() == 'r').orElse(false);
        return copyStatement(columns, format, plainTable);
    }

    @Override
    public Optional<ReplacingLoads> replacingLoads() {
        return Optional.of(this::openReplacingTransaction);
    }

    private ReplacingTransaction openReplacingTransaction(List<Column> columns, CopyFormat format,
                                                          Optional<LedgerWork<Boolean>> first, long expectedBytes)
            throws ConnectorException {
        requireNonNull(columns, "columns is null");
        requireNonNull(format, "format is null");
        requireNonNull(first, "first is null");
        // A replace empties and fills its new table, never the target.
        QualifiedName emptied = load.shadow().orElse(name);
        Optional<RejectsTable> rejects = rejectsTable(columns);
        // COPY FREEZE needs the truncation in its own subtransaction; rows set aside need savepoints
        return ReplacingLoad.begin(connections, emptied, target.ledger(), first, rejects.isPresent()
                        ? writeStatement(columns, format) : replacingWriteStatement(columns, format),
                writeStatement(columns, format), "COPY into " + target.describe(), target.locks(),
                load::beforeCommit, rejects, expectedBytes < KEEP_EMPTY_BELOW_BYTES, name.quoted());
    }

    /**
     * The rejects table with the COPY's columns, when the planned load sets rows aside; with the target's screen when
     * the COPY writes the target itself.
     */
    private Optional<RejectsTable> rejectsTable(List<Column> columns) throws ConnectorException {
        if (load.rejectsTable().isEmpty()) {
            return Optional.empty();
        }
        Optional<RowScreen.PerTable> screened = load.copiesIntoTarget() ? Optional.of(rowScreen()) : Optional.empty();
        return Optional.of(new RejectsTable(load.rejectsTable().get(), columns, screened));
    }

    /** The target's screen: read by the first writer session that uses it (the table exists by then). */
    private RowScreen.PerTable rowScreen() throws ConnectorException {
        RowScreen.PerTable known = screen;
        if (known == null) {
            known = new RowScreen.PerTable(target.resolve().oid());
            screen = known;
        }
        return known;
    }

    @Override
    public PartitionWriter openWriter(List<Column> columns, CopyFormat format) throws ConnectorException {
        requireNonNull(columns, "columns is null");
        requireNonNull(format, "format is null");
        return CopyInWriter.open(ConnectionSlot.oneOff(connections), writeStatement(columns, format),
                "COPY into " + target.describe(), target.ledger(), beforeCopy(columns), load.afterCopy(columns),
                rejectsTable(columns));
    }

    /** The worker's writers share one connection; each partition still commits in its own transaction. */
    @Override
    public PartitionWriters openWriters(List<Column> columns, CopyFormat format) {
        String copySql = writeStatement(requireNonNull(columns, "columns is null"),
                requireNonNull(format, "format is null"));
        ConnectionSlot slot = ConnectionSlot.forWorker(connections, PostgresConnections.Use.WRITER);
        return new PartitionWriters() {
            @Override
            public PartitionWriter open() throws ConnectorException {
                return CopyInWriter.open(slot, copySql, "COPY into " + target.describe(), target.ledger(),
                        beforeCopy(columns), load.afterCopy(columns), rejectsTable(columns));
            }

            @Override
            public void close() {
                slot.close();
            }
        };
    }

    /**
     * Before each partition's COPY: the lock COPY takes anyway (ROW EXCLUSIVE), taken so that a session holding the
     * table (LOCK TABLE, an index build) shows as a wait and ends in a clear error after the lock-timeout.
     */
    private BeforeCopy beforeCopy(List<Column> columns) {
        BeforeCopy forLoad = loadBeforeCopy(columns);
        String tag = sessionTag;
        if (tag == null) {
            return forLoad;
        }
        // A joined process's writers carry its name, so a process that takes its partitions over can end them.
        return c -> {
            PostgresConnections.nameSession(c, tag);
            forLoad.run(c);
        };
    }

    private BeforeCopy loadBeforeCopy(List<Column> columns) {
        Optional<BeforeCopy> forLoad = load.beforeCopy(columns);
        if (forLoad.isPresent()) {
            return forLoad.get();
        }
        TableLocks current = target.locks();
        String table = target.describe();
        if (!target.resolved().map(TableLocks::lockable).orElse(true)) {
            return BeforeCopy.NOTHING; // a foreign table: LOCK TABLE refuses it
        }
        return c -> current.lock(c, List.of(table), TableLocks.Mode.ROW_EXCLUSIVE, "load it", ErrorKind.FAILED);
    }
}
