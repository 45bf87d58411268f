package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.copy.RejectsTable;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.read.TableRows;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.LeftoverSessions;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.connector.postgres.write.load.BeforeTable;
import io.sluice.connector.postgres.write.load.CarriedExtensions;
import io.sluice.connector.postgres.write.load.CarriedObjects;
import io.sluice.connector.postgres.write.load.PostgresLoad;
import io.sluice.connector.postgres.write.load.TargetAhead;
import io.sluice.spi.data.SchemaChanges;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.session.LineageNames;
import io.sluice.spi.changes.ChangeSink;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.read.SchemaObjects;
import io.sluice.spi.read.Source;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.StoredRejects;
import io.sluice.spi.write.Target;
import io.sluice.spi.write.TargetRows;
import io.sluice.spi.write.TargetTable;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG207;
import static java.util.Objects.requireNonNull;

/**
 * A PostgreSQL table a stream writes: resolved and checked, its load planned ({@link #planLoad}, which returns the
 * {@link PostgresPlannedLoad} that runs it: steps, claim, COPY writers), its rows digested, rejects read back, changes
 * applied.
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
    /** What of the source's access rules a created table gets ({@code privileges:}, {@code owners:}). */
    private final TableAccess access;
    /** Present with {@code objects: all}: which stream carries each source schema's objects. */
    private final Optional<ObjectCarriers> objectCarriers;
    /** {@code publications: copy}: the carried objects include the schema's publications. */
    private final boolean publications;
    /** One per target, so a change route names this table by it. */
    private final ChangeSink changeSink;
    private ResolvedTable resolved;
    /** How planning and the load wait for locks: the latest {@link #waitForLocks} said. */
    private volatile TableLocks locks;
    /** The table as read ahead with the other tables of its pattern, until planning has used it; else null. */
    private volatile TargetAhead ahead;

    /**
     * @param withDefinition  a created table gets the source table's definition ({@code definition: full})
     * @param access          and of its grants and owner ({@code privileges:}, {@code owners:})
     * @param objectCarriers  present with {@code objects: all}: the run also carries the source schema's objects
     * @param publications    with them, the publications of the schema's tables ({@code publications: copy})
     * @param ahead           the table as read ahead of planning, with the other tables of its pattern
     */
    public PostgresTarget(PostgresConnections connections, QualifiedName name, String ledgerSchema,
                          boolean createIfMissing, List<String> primaryKey, boolean withDefinition,
                          TableAccess access, Optional<ObjectCarriers> objectCarriers, boolean publications,
                          Optional<TargetAhead> ahead) {
        this.connections = requireNonNull(connections, "connections is null");
        this.name = requireNonNull(name, "name is null");
        this.createIfMissing = createIfMissing;
        this.primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        this.withDefinition = withDefinition;
        this.access = requireNonNull(access, "access is null");
        this.objectCarriers = requireNonNull(objectCarriers, "objectCarriers is null");
        this.publications = publications;
        this.locks = new TableLocks(connections, LockWaits.silent(LockWaits.DEFAULT_TIMEOUT));
        this.ledger = new PostgresLedgerStore(connections, requireNonNull(ledgerSchema, "ledgerSchema is null"), name);
        this.changeSink = new TableChangeSink(connections, ledger, name.quoted(), this::describe);
        this.ahead = requireNonNull(ahead, "ahead is null").orElse(null);
    }

    @Override
    public void waitForLocks(LockWaits waits) {
        locks = new TableLocks(connections, requireNonNull(waits, "waits is null"));
        ledger.waitForLocks(locks);
    }

    /**
     * Plans the load: the table as it is (checked as {@link #table()} checks it), or, missing and
     * {@code create: if-missing}, as the load will create it from the source's columns.
     */
    @Override
    public PlannedLoad planLoad(LoadRequest request, Source source) throws ConnectorException {
        requireNonNull(request, "request is null");
        requireNonNull(source, "source is null");
        TargetAhead read = ahead;
        ahead = null; // read ahead for this plan only
        // --data-only creates nothing: a missing table is refused as without create: if-missing.
        boolean creates = createIfMissing && request.scope() != LoadRequest.Scope.DATA_ONLY;
        if (read != null && (read.table().table().isPresent() ? !read.table().granted() : !creates)) {
            read = null; // refused: the per-table way says why, with the fix
        }
        Optional<TargetAhead> readAhead = Optional.ofNullable(read);
        Optional<ResolvedTable> existing = readAhead.isPresent() ? read.table().table() : describeExisting(creates);
        if (existing.isPresent() && (read == null || !read.deadChecked())) {
            // A killed run of this host may have left a statement waiting on the table: it would hold up the planning.
            ResolvedTable table = existing.get();
            LeftoverSessions.endOfDeadProcesses(connections, table.schema(), PostgresLoad.relationsOf(table.name()),
                    locks.timeout());
        }
        // The table as it is (kind and privileges checked), or the source's columns for the table to create.
        List<Column> columns = existing.isPresent() ? table(readAhead).columns() : source.copyColumns();
        Optional<TableDefinition> definition = existing.isEmpty() && withDefinition
                ? source.tableDefinition() : Optional.empty();
        if (existing.isEmpty()) {
            definition = access.carried(request, definition, withDefinition, source, name, connections);
        }
        // Every policy compares the table with the source's columns as a created table has them: fail refuses what
        // would change values or leave columns unfed, the others follow the source.
        if (source.changes().isPresent()) {
            refuseChangesWithoutKey(request, existing, definition);
        }
        Optional<SchemaObjects> schemaObjects = objectCarriers.isPresent() ? source.schemaObjects() : Optional.empty();
        Optional<CarriedObjects> objects = objectCarriers.isPresent() ? carriedObjects(schemaObjects, source, request)
                : Optional.empty();
        BeforeTable before = BeforeTable.NONE;
        if (objectCarriers.isPresent() && request.scope() != LoadRequest.Scope.DATA_ONLY) {
            String schemaKey = schemaObjects.orElseThrow().schemaKey();
            before = new BeforeTable(objectCarriers.get().extensionsOf(schemaKey), objectCarriers.get()
                    .objectsOf(schemaKey).map(CarriedObjects::early).orElse(CarriedObjects.Early.NONE));
        }
        List<Column> changedSource = List.of();
        if (existing.isPresent()) {
            try {
                changedSource = source.copyColumns();
            } catch (ConnectorException e) {
                if (request.schemaChanges() != SchemaChanges.FAIL) {
                    throw e;
                }
                // A source that cannot type its columns in PostgreSQL's terms: fail compares nothing more
            }
        }
        try (ControlConnection control = connections.control("planning the load of " + name.quoted())) {
            PostgresLoad planned = PostgresLoad.plan(connections, ledger, request, name, existing, columns,
                    changedSource, source::typeDefinition, primaryKey, locks, control.connection(), definition,
                    readAhead, objectCarriers.isPresent(), before);
            return new PostgresPlannedLoad(this, planned, objects, before);
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

    /**
     * {@code objects: all}: the schema's objects ({@code role}), when this stream carries them (the schema's first
     * table planned). Refused at plan: (PG238) not a PostgreSQL table copied whole, or copied under another name;
     * (PG239) changes followed while the schema has triggers, which would fire on applied rows; (PG240) a policy's
     * role this server lacks; (PG242) load-mode replace, whose swap the objects on the table would stop.
     */
    private Optional<CarriedObjects> carriedObjects(Optional<SchemaObjects> role, Source source, LoadRequest request)
            throws ConnectorException {
        LoadRequest.Scope scope = request.scope();
        Optional<RelationIdentity> copied = source.copiedTable();
        if (role.isEmpty() || copied.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG238, "objects: all on "
                    + name.quoted() + ", but " + source.describe() + " is not a PostgreSQL table read whole (a "
                    + "query, another kind of source, or columns: rules that reshape it): it has no schema whose "
                    + "objects could be carried", "copy PostgreSQL tables (table: \"schema.*\") without columns: "
                    + "rules, or set objects: tables");
        }
        if (!copied.get().display().equals(name.quoted())) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG238, "objects: all copies the "
                    + "schema's objects as the source defines them, naming the source's tables, but "
                    + copied.get().display() + " is copied into " + name.quoted(), "keep the source's schema and "
                    + "names (e.g. table: \"" + role.get().schema() + ".{table}\" on the target), or set objects: "
                    + "tables");
        }
        if (request.mode() == LoadMode.REPLACE) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG242, "objects: all with load-mode "
                    + "replace on " + name.quoted() + ": the schema's views, triggers and policies would stand on the "
                    + "table, and a replace swaps in a new one, which the next run's swap cannot do under them",
                    "use load-mode truncate (one transaction, all or nothing, as a replace), or set objects: tables");
        }
        if (!objectCarriers.get().carries(role.get().schemaKey(), name.quoted())) {
            return Optional.empty();
        }
        SchemaObjects.Contents contents = role.get().read();
        CarriedObjects.Access owners = scope == LoadRequest.Scope.DATA_ONLY ? CarriedObjects.Access.NONE
                : access.objectAccess(contents.objects(), role.get().schema(), connections);
        CarriedObjects objects = new CarriedObjects(connections, ledger, role.get(), contents, scope, owners,
                publications);
        if (scope == LoadRequest.Scope.DATA_ONLY) {
            return Optional.of(objects); // fills the materialized views that exist, creates nothing
        }
        if (source.changes().isPresent() && objects.hasTriggers()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG239, "objects: all would create "
                    + "the triggers of schema " + SqlQuote.identifier(role.get().schema()) + ", and the stream "
                    + "follows changes: they would fire on every applied change and alter the rows it writes",
                    "copy the schema's objects in a run without changes: (objects: all), then follow changes with "
                    + "objects: tables");
        }
        objects.checked();
        objectCarriers.get().carry(role.get().schemaKey(), objects, CarriedExtensions.plan(connections,
                role.get().schema(), contents.extensions()));
        return Optional.of(objects);
    }

    /** The table as it is now; missing without {@code create: if-missing}: refused, with the fix. */
    private Optional<ResolvedTable> describeExisting(boolean creates) throws ConnectorException {
        Optional<ResolvedTable> existing;
        try (ControlConnection control = connections.control("describing " + name.quoted())) {
            PostgresCatalog catalog = new PostgresCatalog(control.connection());
            existing = catalog.resolveTable(name);
            if (existing.isEmpty() && !creates) {
                ConnectorException missing = catalog.missingTable(name);
                throw new ConnectorException(missing.kind(), missing.code(), missing.getMessage(),
                        missing.fix().orElse("") + (createIfMissing ? "; --data-only creates nothing: create it "
                                + "with a --schema-only run (or a run without --data-only)"
                                : "; or set create: if-missing on the target to create it"));
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe " + name.quoted());
        }
        return existing;
    }

    /** The table as {@link #table()} resolved it, resolving it now if it has not. */
    ResolvedTable resolve() throws ConnectorException {
        java.util.Optional<ResolvedTable> known = resolved();
        if (known.isPresent()) {
            return known.get();
        }
        table();
        return resolved().orElseThrow();
    }

    /** The table written: as resolved, or by the name the spec gave it when the run creates it. */
    @Override
    public java.util.Optional<LineageDataset> lineageOutput() throws ConnectorException {
        java.util.Optional<ResolvedTable> known = resolved();
        String schema = known.map(ResolvedTable::schema).orElse(name.schema().orElse("public"));
        String table = known.map(ResolvedTable::name).orElse(name.name());
        return java.util.Optional.of(LineageNames.table(connections, schema, table));
    }

    @Override
    public java.util.Optional<LedgerStore> ledgerStore() {
        return java.util.Optional.of(ledger);
    }

    PostgresConnections connections() {
        return connections;
    }

    QualifiedName name() {
        return name;
    }

    PostgresLedgerStore ledger() {
        return ledger;
    }

    TableLocks locks() {
        return locks;
    }

    @Override
    public String describe() {
        return resolved().map(ResolvedTable::quoted).orElse(name.quoted());
    }

    java.util.Optional<ResolvedTable> resolved() {
        lock.lock();
        try {
            return java.util.Optional.ofNullable(resolved);
        } finally {
            lock.unlock();
        }
    }

    private void remember(ResolvedTable table) {
        lock.lock();
        try {
            resolved = table;
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
                remember(table);
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
            remember(table);
            return new TargetTable(table.quoted(), columns);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe " + name.quoted());
        }
    }

    /** Empties the table in its own transaction. */
    public void truncate() throws ConnectorException {
        Truncation.run(connections, name, ledger, locks, java.util.Optional.empty());
    }

    /** {@link #truncate()} with the ledger's part first, in one transaction ({@link PlannedLoad#ledgeredTruncate}). */
    public boolean truncate(LedgerWork<Boolean> first) throws ConnectorException {
        return Truncation.run(connections, name, ledger, locks, java.util.Optional.of(requireNonNull(first,
                "first is null")));
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

    /** Counts and hashes the rows where they are, as compare's digests do ({@link TableRows#digest}). */
    @Override
    public Optional<Digest> digest(List<Column> columns, Optional<String> predicate, Digest.Level level)
            throws ConnectorException {
        return Optional.of(TableRows.of(connections, describe()).digest(columns, predicate, level, RowHash.POSTGRES));
    }

    @Override
    public Optional<TargetRows> rows() {
        return Optional.of(TableRows.of(connections, describe()));
    }

    @Override
    public Optional<ChangeSink> changeSink() {
        return Optional.of(changeSink);
    }
}
