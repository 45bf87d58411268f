package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.copy.AfterCopy;
import io.sluice.connector.postgres.copy.BeforeCopy;
import io.sluice.connector.postgres.copy.CopyInWriter;
import io.sluice.connector.postgres.copy.RejectsTable;
import io.sluice.connector.postgres.copy.RowScreen;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.read.DigestQuery;
import io.sluice.connector.postgres.session.ConnectionSlot;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.LeftoverSessions;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.connector.postgres.session.TargetOwnership;
import io.sluice.connector.postgres.write.load.ForeignKeys;
import io.sluice.connector.postgres.write.load.PostgresLoad;
import io.sluice.connector.postgres.write.load.TargetAhead;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.changes.PostgresChangeApplier;
import io.sluice.connector.postgres.session.LineageNames;
import io.sluice.spi.ChangeApplier;
import io.sluice.spi.ChangeRoute;
import io.sluice.spi.ChangeSink;
import io.sluice.spi.Column;
import io.sluice.spi.CopyFormat;
import io.sluice.spi.Digest;
import io.sluice.spi.LineageDataset;
import io.sluice.spi.LoadMode;
import io.sluice.spi.LoadPlan;
import io.sluice.spi.LoadRequest;
import io.sluice.spi.LockWaits;
import io.sluice.spi.PartitionWriter;
import io.sluice.spi.PartitionWriters;
import io.sluice.spi.RejectedRow;
import io.sluice.spi.RelationIdentity;
import io.sluice.spi.ReplacingLoads;
import io.sluice.spi.ReplacingTransaction;
import io.sluice.spi.SharedClaims;
import io.sluice.spi.StoredRejects;
import io.sluice.spi.Source;
import io.sluice.spi.TableDefinition;
import io.sluice.spi.Target;
import io.sluice.spi.TargetClaim;
import io.sluice.spi.TargetHooks;
import io.sluice.spi.TargetTable;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LedgeredTruncate;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG207;
import static java.util.Objects.requireNonNull;

/**
 * A PostgreSQL table written with COPY FROM STDIN, one transaction per partition, or all of a truncate load in one
 * ({@link ReplacingLoad}).
 *
 * <p>Over 400 lines because it is the whole {@link Target} contract in one place: each method checks its arguments
 * and hands the work on (the load's steps to {@link PostgresLoad}, claims to {@link TargetOwnership}, emptying to
 * {@link Truncation}, writers to {@link CopyInWriter}); what is left here is the table's resolution and which COPY
 * statement and per-partition work each writer gets.
 */
public final class PostgresTarget implements Target {

    private final PostgresConnections connections;
    private final QualifiedName name;
    private final PostgresLedgerStore ledger;
    private final ReentrantLock lock = new ReentrantLock();
    private final boolean createIfMissing;
    private final List<String> primaryKey;
    /** A table created from a PostgreSQL source table gets its definition ({@code definition: full}). */
    private final boolean withDefinition;
    private ResolvedTable resolved;
    private volatile TableLocks locks;
    private volatile PostgresLoad load;
    private volatile RowScreen.PerTable screen; // null until the first writer with rejects asks
    /** In a joined run: the application_name of this process's sessions ({@link #claimShared(String, String)}). */
    private volatile String sessionTag;
    /** In a joined run: its id, which names the other processes' sessions too. */
    private volatile String joinedRun;
    /** The table as read ahead with the other tables of its pattern, until planning has used it; else null. */
    private volatile TargetAhead ahead;

    public PostgresTarget(PostgresConnections connections, QualifiedName name, String ledgerSchema) {
        this(connections, name, ledgerSchema, false, List.of(), true);
    }

    public PostgresTarget(PostgresConnections connections, QualifiedName name, String ledgerSchema, boolean createIfMissing,
                   List<String> primaryKey, boolean withDefinition) {
        this.withDefinition = withDefinition;
        this.connections = requireNonNull(connections, "connections is null");
        this.name = requireNonNull(name, "name is null");
        this.createIfMissing = createIfMissing;
        this.primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        this.locks = new TableLocks(connections, LockWaits.silent(LockWaits.DEFAULT_TIMEOUT));
        this.ledger = new PostgresLedgerStore(connections, requireNonNull(ledgerSchema, "ledgerSchema is null"), name);
    }

    /** {@code ahead}: the table as read ahead of planning, with the other tables of its pattern. */
    public PostgresTarget(PostgresConnections connections, QualifiedName name, String ledgerSchema,
                          boolean createIfMissing, List<String> primaryKey, boolean withDefinition,
                          Optional<TargetAhead> ahead) {
        this(connections, name, ledgerSchema, createIfMissing, primaryKey, withDefinition);
        this.ahead = requireNonNull(ahead, "ahead is null").orElse(null);
    }

    @Override
    public void waitForLocks(LockWaits waits) {
        locks = new TableLocks(connections, requireNonNull(waits, "waits is null"));
        ledger.waitForLocks(locks);
        PostgresLoad planned = load;
        if (planned != null) {
            planned.waitForLocks(locks);
        }
    }

    /**
     * Plans the load: the table as it is (checked as {@link #table()} checks it), or, missing and
     * {@code create: if-missing}, as the load will create it from the source's columns.
     */
    @Override
    public LoadPlan planLoad(LoadRequest request, Source source) throws ConnectorException {
        requireNonNull(request, "request is null");
        requireNonNull(source, "source is null");
        TargetAhead read = ahead;
        ahead = null; // read ahead for this plan only
        if (read != null && (read.table().table().isPresent() ? !read.table().granted() : !createIfMissing)) {
            read = null; // refused: the per-table way says why, with the fix
        }
        Optional<TargetAhead> readAhead = Optional.ofNullable(read);
        Optional<ResolvedTable> existing = readAhead.isPresent() ? read.table().table() : describeExisting();
        if (existing.isPresent() && (read == null || !read.deadChecked())) {
            // A killed run of this host may have left a statement waiting on the table: it would hold up the planning.
            ResolvedTable table = existing.get();
            LeftoverSessions.endOfDeadProcesses(connections, table.schema(), PostgresLoad.relationsOf(table.name()),
                    locks.timeout());
        }
        // The table as it is (kind and privileges checked), or the source's columns for the table to create.
        List<Column> columns = existing.isPresent() ? table(readAhead).columns() : source.postgresColumns();
        Optional<TableDefinition> definition = existing.isEmpty() && withDefinition
                ? source.tableDefinition() : Optional.empty();
        // Every policy compares the table with the source's columns as a created table has them: fail refuses what
        // would change values or leave columns unfed, the others follow the source.
        if (source.changes().isPresent()) {
            refuseChangesWithoutKey(request, existing, definition);
        }
        List<Column> changedSource = List.of();
        if (existing.isPresent()) {
            try {
                changedSource = source.postgresColumns();
            } catch (ConnectorException e) {
                if (request.schemaChanges() != LoadRequest.SchemaChanges.FAIL) {
                    throw e;
                }
                // A source that cannot type its columns in PostgreSQL's terms: fail compares nothing more
            }
        }
        try (ControlConnection control = connections.control("planning the load of " + name.quoted())) {
            PostgresLoad planned = PostgresLoad.plan(connections, ledger, request, name, existing, columns,
                    changedSource, source::typeDefinition, primaryKey, locks, control.connection(), definition,
                    readAhead);
            load = planned;
            return planned.loadPlan();
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot plan the load of "
                    + name.quoted());
        }
    }

    /**
     * PG607 at plan: changes find their rows by the target's primary key, so a table that would be created without
     * one (no {@code primary-key:}, and no carried definition: {@code columns:} rules, {@code definition: bare}, a
     * replace or a merge leave it out) is refused before the copy. A table that exists without a key is left to the
     * apply's own check: it may be the one a killed run created, whose key that run's resume still adds.
     */
    private void refuseChangesWithoutKey(LoadRequest request, Optional<ResolvedTable> existing,
                                         Optional<TableDefinition> definition)
            throws ConnectorException {
        if (existing.isPresent()) {
            return;
        }
        boolean carried = definition.isPresent() && definition.get().constraints().stream()
                .anyMatch(c -> c.type() == 'p') && (request.mode() == LoadMode.APPEND
                || request.mode() == LoadMode.TRUNCATE);
        if (primaryKey.isEmpty() && !carried) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG607,
                    "the stream follows changes, and " + name.quoted() + " would be created without a primary key: "
                    + "no change could find its row; nothing was copied", "add primary-key: [...] to the target "
                    + "(columns: rules and definition: bare create a table without the source's key; append or "
                    + "truncate with definition: full carries it)");
        }
    }

    /** The table as it is now; missing without {@code create: if-missing}: refused, with the fix. */
    private Optional<ResolvedTable> describeExisting() throws ConnectorException {
        Optional<ResolvedTable> existing;
        try (ControlConnection control = connections.control("describing " + name.quoted())) {
            PostgresCatalog catalog = new PostgresCatalog(control.connection());
            existing = catalog.resolveTable(name);
            if (existing.isEmpty() && !createIfMissing) {
                ConnectorException missing = catalog.missingTable(name);
                throw new ConnectorException(missing.kind(), missing.code(), missing.getMessage(),
                        missing.fix().orElse("") + "; or set create: if-missing on the target to create it");
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe " + name.quoted());
        }
        return existing;
    }

    @Override
    public LoadPlan.AcrossStreams planAcrossStreams(java.util.Map<String, String> copies) throws ConnectorException {
        requireNonNull(copies, "copies is null");
        PostgresLoad planned = load;
        return planned == null ? LoadPlan.AcrossStreams.NONE : planned.planAcrossStreams(copies);
    }

    @Override
    public void beginBeforeStreams(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        PostgresLoad planned = load;
        if (planned != null) {
            planned.beforeStreams(marks);
        }
    }

    /** The foreign keys this run's marks of the table owe ({@link ForeignKeys}). */
    @Override
    public void finishAfterStreams(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        java.util.Map<String, String> done = ledger.inTransaction(marks.reading());
        if (ForeignKeys.owed(done)) {
            ForeignKeys.addRecorded(connections, ledger, marks, done);
        }
    }

    @Override
    public void beginLoad(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        PostgresLoad planned = load;
        if (planned == null) {
            return;
        }
        // Alone on the table (not a joined run), a session of its runs still at work there is a dead process's, and
        // would race what begins now.
        planned.begin(marks, sessionTag == null, locks.timeout());
        if (planned.creates() && planned.tableAfterBegin()) {
            table(); // created now: resolve it for the writers
        }
    }

    @Override
    public void finishLoad(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        PostgresLoad planned = load;
        if (planned != null) {
            planned.finish(marks);
        }
    }

    @Override
    public java.util.Optional<TargetHooks> hooks() {
        return java.util.Optional.of(this::runHook);
    }

    private boolean runHook(String phase, List<String> statements, LoadMarks marks) throws ConnectorException {
        requireNonNull(phase, "phase is null");
        requireNonNull(statements, "statements is null");
        requireNonNull(marks, "marks is null");
        PostgresLoad planned = load;
        if (planned == null) {
            throw new IllegalStateException("runHook before planLoad");
        }
        return planned.runHook(phase, statements, marks);
    }

    @Override
    public void abortLoad(LoadMarks marks) throws ConnectorException {
        requireNonNull(marks, "marks is null");
        PostgresLoad planned = load;
        if (planned != null) {
            planned.abort(marks);
        }
    }

    /** The name the claim is keyed on: the table's, qualified, whether it exists yet or not. */
    private String claimedName() throws ConnectorException {
        PostgresLoad planned = load;
        return planned != null ? planned.quoted() : resolve().quoted();
    }

    @Override
    public TargetClaim claim(String runId) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        TargetClaim claim = TargetOwnership.claim(connections, claimedName(), runId, locks, false);
        connections.nameSessions(TargetOwnership.applicationName(runId)); // findable, should this process be killed
        PostgresLoad planned = load;
        if (planned == null) {
            return claim;
        }
        planned.holdsTableAlone();
        return () -> {
            try {
                planned.releaseGuard(); // a replace's hold on the old table ends with the claim, whatever happened
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
        requireNonNull(holder, "holder is null");
        String tag = TargetOwnership.sessionTag(runId, holder);
        joinedRun = runId;
        sessionTag = tag;
        TargetClaim claim = claimShared(runId);
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

    private TargetClaim claimShared(String runId) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        return TargetOwnership.claim(connections, claimedName(), runId, locks, true);
    }

    @Override
    public java.util.Optional<RelationIdentity> relation() throws ConnectorException {
        PostgresLoad planned = load;
        if (planned != null && planned.creates()) {
            return java.util.Optional.empty(); // nothing reads a table that does not exist yet
        }
        ResolvedTable table = resolve();
        try (ControlConnection control = connections.control("identifying " + table.quoted())) {
            return java.util.Optional.of(new RelationIdentity(new PostgresCatalog(control.connection())
                    .relationKey(table.oid()), table.quoted()));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot identify " + name.quoted());
        }
    }

    /** The table written: as resolved, or by the name the spec gave it when the run creates it. */
    @Override
    public java.util.Optional<LineageDataset> lineageOutput() throws ConnectorException {
        java.util.Optional<ResolvedTable> known = resolved();
        String schema = known.map(ResolvedTable::schema).orElse(name.schema().orElse("public"));
        String table = known.map(ResolvedTable::name).orElse(name.name());
        return java.util.Optional.of(LineageNames.table(connections, schema,
                table));
    }

    /** The table as {@link #table()} resolved it, resolving it now if it has not. */
    private ResolvedTable resolve() throws ConnectorException {
        java.util.Optional<ResolvedTable> known = resolved();
        if (known.isPresent()) {
            return known.get();
        }
        table();
        return resolved().orElseThrow();
    }

    @Override
    public java.util.Optional<LedgerStore> ledgerStore() {
        return java.util.Optional.of(ledger);
    }

    @Override
    public String describe() {
        return resolved().map(ResolvedTable::quoted).orElse(name.quoted());
    }

    private java.util.Optional<ResolvedTable> resolved() {
        lock.lock();
        try {
            return java.util.Optional.ofNullable(resolved);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public TargetTable table() throws ConnectorException {
        return table(Optional.empty());
    }

    /** {@link #table()}, from what was read ahead of planning when it was (a loadable table, INSERT granted). */
    private TargetTable table(Optional<TargetAhead> read) throws ConnectorException {
        Optional<ResolvedTable> known = read.flatMap(r -> r.table().table());
        if (known.isPresent() && read.get().table().granted()) {
            ResolvedTable table = known.get();
            if (table.relkind() == 'r' || table.relkind() == 'p' || table.relkind() == 'f') {
                lock.lock();
                try {
                    resolved = table;
                } finally {
                    lock.unlock();
                }
                return new TargetTable(table.quoted(), read.get().table().columns());
            }
        }
        try (ControlConnection control = connections.control("describing " + name.quoted())) {
            PostgresCatalog catalog = new PostgresCatalog(control.connection());
            ResolvedTable table = catalog.resolveTable(name)
                    .orElseThrow(() -> catalog.missingTable(name));
            if (table.relkind() != 'r' && table.relkind() != 'p' && table.relkind() != 'f') {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PG207, table.quoted() + " is a "
                        + table.kindName() + "; COPY can load only tables", "load a table");
            }
            if (!catalog.hasTablePrivilege(table.oid(), "INSERT")
                    && !catalog.columnsLackingPrivilege(table.oid(), "INSERT").isEmpty()) {
                throw catalog.lacking(table, "INSERT");
            }
            List<Column> columns = catalog.columns(table.oid());
            lock.lock();
            try {
                resolved = table;
            } finally {
                lock.unlock();
            }
            return new TargetTable(table.quoted(), columns);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe " + name.quoted());
        }
    }

    @Override
    public void truncate() throws ConnectorException {
        Truncation.run(connections, name, ledger, locks, java.util.Optional.empty());
    }

    @Override
    public java.util.Optional<LedgeredTruncate> ledgeredTruncate() {
        return java.util.Optional.of(this::truncate);
    }

    /** {@link #truncate()} with the ledger's part first, in the one transaction (see {@link LedgeredTruncate}). */
    public boolean truncate(LedgerWork<Boolean> first) throws ConnectorException {
        return Truncation.run(connections, name, ledger, locks, java.util.Optional.of(requireNonNull(first,
                "first is null")));
    }

    @Override
    public String writeStatement(List<Column> columns, CopyFormat format) {
        return copyStatement(columns, format, false);
    }

    private String copyStatement(List<Column> columns, CopyFormat format, boolean freeze) {
        PostgresLoad planned = load;
        return "COPY " + (planned == null ? describe() : planned.copyTable()) + " (" + columns.stream().map(c -> SqlQuote.identifier(c.name()))
                .collect(Collectors.joining(", ")) + ") FROM STDIN (FORMAT "
                + (format == CopyFormat.BINARY ? "binary" : "text") + (freeze ? ", FREEZE)" : ")");
    }

    /** With FREEZE where PostgreSQL allows it: plain tables (not partitioned or foreign ones). */
    @Override
    public String replacingWriteStatement(List<Column> columns, CopyFormat format) {
        PostgresLoad planned = load;
        boolean plainTable = planned != null && planned.shadow().isPresent() // the new table
                || resolved().map(t -> t.relkind() == 'r').orElse(false);
        return copyStatement(columns, format, plainTable);
    }

    @Override
    public java.util.Optional<ReplacingLoads> replacingLoads() {
        return java.util.Optional.of(this::openReplacingTransaction);
    }

    /**
     * A load of a table with no pages expected to bring at most this much keeps the table instead of truncating it
     * (and copies without FREEZE): TRUNCATE made four new files and dropped four at the commit, about 1.5 ms of the
     * server's time a table, where FREEZE saves a small table little.
     */
    static final long KEEP_EMPTY_BELOW_BYTES = 8L << 20;

    private ReplacingTransaction openReplacingTransaction(List<Column> columns, CopyFormat format,
                                                          java.util.Optional<LedgerWork<Boolean>> first,
                                                          long expectedBytes) throws ConnectorException {
        requireNonNull(columns, "columns is null");
        requireNonNull(format, "format is null");
        requireNonNull(first, "first is null");
        PostgresLoad planned = load;
        // A replace empties and fills its new table, never the target.
        QualifiedName emptied = planned == null ? name : planned.shadow().orElse(name);
        java.util.Optional<RejectsTable> rejects = rejectsTable(columns);
        // COPY FREEZE needs the truncation in its own subtransaction; rows set aside need savepoints
        return ReplacingLoad.begin(connections, emptied, ledger, first, rejects.isPresent()
                        ? writeStatement(columns, format) : replacingWriteStatement(columns, format),
                writeStatement(columns, format), "COPY into " + describe(), locks,
                planned == null ? ReplacingLoad.BeforeCommit.NOTHING : planned::beforeCommit, rejects,
                expectedBytes < KEEP_EMPTY_BELOW_BYTES);
    }

    @Override
    public java.util.Optional<StoredRejects> storedRejects() {
        return java.util.Optional.of(this::rejectedRows);
    }

    private java.util.List<RejectedRow.Stored> rejectedRows(String table, String stream,
                                                            java.util.Optional<String> runId, int limit)
            throws ConnectorException {
        requireNonNull(table, "table is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(runId, "runId is null");
        QualifiedName written;
        try {
            written = QualifiedName.parse(table);
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode
                    .PG228, "rejects table: " + e.getMessage(), "write schema.table, e.g. public.orders_rejects");
        }
        // an unqualified rejects table lives in the target table's schema, as the load made it
        String schema = written.schema().orElseGet(() -> resolved().map(ResolvedTable::schema)
                .orElse(name.schema().orElse("public")));
        QualifiedName rejects = QualifiedName.of(schema, written.name());
        try (ControlConnection control = connections.control("reading " + rejects.quoted())) {
            return RejectsTable.read(control.connection(), rejects.quoted(), stream, runId, limit);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the rejects table "
                    + rejects.quoted());
        }
    }

    /**
     * The rejects table with the COPY's columns, when the planned load sets rows aside; with the target's screen when
     * the COPY writes the target itself.
     */
    private java.util.Optional<RejectsTable> rejectsTable(List<Column> columns) throws ConnectorException {
        PostgresLoad planned = load;
        if (planned == null || planned.rejectsTable().isEmpty()) {
            return java.util.Optional.empty();
        }
        java.util.Optional<RowScreen.PerTable> screen = planned.copiesIntoTarget() ? java.util.Optional.of(
                rowScreen()) : java.util.Optional.empty();
        return java.util.Optional.of(new RejectsTable(planned.rejectsTable().get(), columns, screen));
    }

    /** The target's screen: read by the first writer session that uses it (the table exists by then). */
    private RowScreen.PerTable rowScreen() throws ConnectorException {
        RowScreen.PerTable known = screen;
        if (known == null) {
            known = new RowScreen.PerTable(resolve().oid());
            screen = known;
        }
        return known;
    }

    /**
     * Counts and hashes the target's rows over {@code columns} (in mapped order, as the source's digest lists them),
     * with {@code predicate} when given, under {@link DigestQuery#SETTINGS} so values render as on the source.
     */
    @Override
    public java.util.Optional<Digest> digest(List<Column> columns, java.util.Optional<String> predicate,
                                             Digest.Level level) throws ConnectorException {
        requireNonNull(columns, "columns is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(level, "level is null");
        return java.util.Optional.of(DigestQuery.ofTable(connections, describe(), columns, predicate, level));
    }

    @Override
    public PartitionWriter openWriter(List<Column> columns, CopyFormat format) throws ConnectorException {
        requireNonNull(columns, "columns is null");
        requireNonNull(format, "format is null");
        return CopyInWriter.open(ConnectionSlot.oneOff(connections), writeStatement(columns, format),
                "COPY into " + describe(), ledger, beforeCopy(columns), afterCopy(columns), rejectsTable(columns));
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
        PostgresLoad planned = load;
        Optional<BeforeCopy> forLoad = planned == null ? Optional.empty() : planned.beforeCopy(columns);
        if (forLoad.isPresent()) {
            return forLoad.get();
        }
        TableLocks current = locks;
        String table = describe();
        if (!resolved().map(TableLocks::lockable).orElse(true)) {
            return BeforeCopy.NOTHING; // a foreign table: LOCK TABLE refuses it
        }
        return c -> current.lock(c, List.of(table), TableLocks.Mode.ROW_EXCLUSIVE, "load it", ErrorKind.FAILED);
    }

    /** A merge applies each partition's staged rows at its commit. */
    private AfterCopy afterCopy(List<Column> columns) throws ConnectorException {
        PostgresLoad planned = load;
        return planned == null ? AfterCopy.NOTHING : planned.afterCopy(columns);
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
                return CopyInWriter.open(slot, copySql, "COPY into " + describe(), ledger, beforeCopy(columns),
                        afterCopy(columns), rejectsTable(columns));
            }

            @Override
            public void close() {
                slot.close();
            }
        };
    }

    @Override
    public Optional<ChangeSink> changeSink() {
        return Optional.of(this::applierFor);
    }

    /** One applier on this target's database for every route; the other routes' targets must share it. */
    private ChangeApplier applierFor(List<ChangeRoute> routes)
            throws ConnectorException {
        requireNonNull(routes, "routes is null");
        List<PostgresChangeApplier.Route> own = new java.util.ArrayList<>();
        for (ChangeRoute route : routes) {
            if (!(route.target() instanceof PostgresTarget pg) || pg.connections != connections) {
                throw new IllegalArgumentException(route.target().describe() + " is not in the database of "
                        + describe());
            }
            own.add(new PostgresChangeApplier.Route(route.source(),
                    pg.name.quoted(), route.columns(), route.sourceColumns().stream().collect(java.util.stream
                    .Collectors.toMap(Column::name, c -> c, (a, b) -> a)), route.schemaChanges()));
        }
        return new PostgresChangeApplier(connections, ledger, own);
    }
}
