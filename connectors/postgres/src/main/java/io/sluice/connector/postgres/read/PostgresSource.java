// Over 450 lines: the Source contract's many small methods, each handing the work on.
package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.changes.ChangeSlot;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.spi.read.CursorReads;
import io.sluice.spi.read.SnapshotGroup;

import io.sluice.connector.postgres.session.LineageNames;
import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.ComputedColumns;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.RowWindow;
import io.sluice.spi.read.SchemaObjects;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG312;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG313;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG314;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG315;
import static java.util.Objects.requireNonNull;

/**
 * A PostgreSQL table or query read with COPY TO STDOUT, split by one of the distribution methods.

 */
public final class PostgresSource implements Source {
    private final PostgresConnections connections;
    private final Optional<QualifiedName> tableName;
    private final Optional<String> query;
    /** A table source reads its inheritance children's rows too (not with {@code inherited: false}). */
    private final boolean inherited;
    /** {@code where:} the condition every row read meets, applied to every partition (and the cursor's maximum). */
    private final Optional<String> filter;
    private final ReentrantLock lock = new ReentrantLock();
    /** The table as read ahead with the other tables of its pattern, until planning has used it; else null. */
    private volatile SourceAhead ahead;
    /** Where this table's definition is read with the next tables', when it was read ahead; else null. */
    private volatile SourcesAhead definitionsAhead;
    private SourceRelation relation;
    private List<ResolvedTable> tablesRead;
    private volatile LockWaits lockWaits = LockWaits.silent(LockWaits.DEFAULT_TIMEOUT);
    /** The keys of this source's hashed columns, set in each reading transaction instead of pasted into its SQL. */
    private final MaskKeys maskKeys = new MaskKeys();
    /** Sources of one connector read one server database: they can share a snapshot. */
    private final PostgresSnapshotGroup snapshotGroup = new PostgresSnapshotGroup(this);
    private final Optional<PostgresChangeSource> changeSource;
    /** The publication Sluice made for the change feed (named as its slot): the feed's, not the schema's. */
    private final Optional<String> feedPublication;

    private PostgresSource(PostgresConnections connections, Optional<QualifiedName> tableName, Optional<String> query,
                           boolean inherited, Optional<String> filter, Optional<ChangeSlot> changes) {
        this.inherited = inherited;
        this.filter = requireNonNull(filter, "filter is null");
        this.connections = requireNonNull(connections, "connections is null");
        this.tableName = requireNonNull(tableName, "tableName is null");
        this.query = requireNonNull(query, "query is null");
        // changes: the slot that follows the table's changes after the copy
        this.changeSource = requireNonNull(changes, "changes is null").map(slot -> new PostgresChangeSource(this,
                slot));
        this.feedPublication = changes.filter(c -> c.publication().equals(c.slot())).map(ChangeSlot::publication);
    }

    public static PostgresSource ofTable(PostgresConnections connections, QualifiedName table) {
        return ofTable(connections, table, true);
    }

    /** {@code inherited}: also the rows of the table's inheritance children (PostgreSQL's default). */
    public static PostgresSource ofTable(PostgresConnections connections, QualifiedName table, boolean inherited) {
        return ofTable(connections, table, inherited, Optional.empty());
    }

    /** {@code filter}: {@code where:}, the condition every row read meets. */
    public static PostgresSource ofTable(PostgresConnections connections, QualifiedName table, boolean inherited,
                                         Optional<String> filter) {
        return ofTable(connections, table, inherited, filter, Optional.empty());
    }

    /** {@code changes}: the slot that follows the table's changes after the copy ({@code changes:}). */
    public static PostgresSource ofTable(PostgresConnections connections, QualifiedName table, boolean inherited,
                                         Optional<String> filter, Optional<ChangeSlot> changes) {
        return new PostgresSource(connections, Optional.of(table), Optional.empty(), inherited, filter, changes);
    }

    /** {@code ahead}: the tables read ahead of planning, this one's entry among them if it was. */
    public static PostgresSource ofTable(PostgresConnections connections, QualifiedName table, boolean inherited,
                                         Optional<String> filter, Optional<ChangeSlot> changes,
                                         SourcesAhead ahead) {
        PostgresSource source = new PostgresSource(connections, Optional.of(table), Optional.empty(), inherited,
                filter, changes);
        source.ahead = requireNonNull(ahead, "ahead is null").take(table).orElse(null);
        source.definitionsAhead = source.ahead == null ? null : ahead;
        return source;
    }

    public static PostgresSource ofQuery(PostgresConnections connections, String query) {
        return new PostgresSource(connections, Optional.empty(), Optional.of(SourceQuery.strip(query)), true,
                Optional.empty(), Optional.empty());
    }

    @Override
    public String describe() {
        return tableName.map(QualifiedName::quoted).orElse("query");
    }

    @Override
    public List<Column> columns() throws ConnectorException {
        return relation().columns();
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
        requireNonNull(pairs, "pairs is null");
        SourceRelation resolved = relation();
        try (ControlConnection control = connections.control("describing " + describe())) {
            ColumnProjector projector = new ColumnProjector(new PostgresCatalog(control.connection()),
                    resolved.fromClause(), resolved.description());
            return projector.project(pairs);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe " + describe());
        }
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
        requireNonNull(request, "request is null");
        SourceRelation resolved = relation();
        PartitionPlanner planner = planner(request.distribution());
        // The control connection's ISO dates and postgres intervals write boundary literals that read the same on
        // any server and under any DateStyle: a partition's condition means the same to readers, to the target
        // (verification) and on resume.
        try (ControlConnection control = connections.control("planning " + describe())) {
            Connection connection = control.connection();
            PostgresCatalog catalog = new PostgresCatalog(connection);
            RowEstimator estimator = new RowEstimator(connection, resolved.columns().size());
            SourceAhead read = ahead;
            ahead = null; // read ahead for this plan only
            RowEstimator.Estimate total = read != null && read.estimate().isPresent() && filter.isEmpty()
                    ? read.estimate().get()
                    : estimator.estimate(resolved.fromClause(), filter.map(f -> "(" + f + ")"));
            List<PgPartition> planned = planner.plan(new PlanContext(catalog, resolved, request, estimator, total));
            if (filter.isPresent()) {
                // Every partition keeps to where:, in its checkpoint too; the target has no such condition to
                // apply, so the partitions are verified as a whole stream.
                planned = planned.stream().map(p -> p.within("(" + filter.get() + ")").notPortable()).toList();
            }
            if (request.window().isEmpty()) {
                return List.copyOf(planned);
            }
            String window = windowCondition(request.window().get());
            return planned.stream().map(p -> (SourcePartition) p.within(window)).toList();
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot plan " + describe());
        }
    }

    /**
     * {@code (cursor) > 'after' AND (cursor) <= 'upTo'}, or on a first run {@code ((cursor) <= 'upTo' OR (cursor) IS
     * NULL)}: the literals are untyped, so PostgreSQL reads them in the
     * cursor's own type (numbers, timestamps, dates, text), as it wrote them in {@link #highestCursor}.
     */
    private static String windowCondition(RowWindow window) {
        String cursor = "(" + window.cursor() + ")";
        if (window.after().isEmpty()) {
            // The first run and --full-refresh read everything, rows whose cursor is NULL too (no later window can).
            return "(" + cursor + " <= " + SqlQuote.literal(window.upTo()) + " OR " + cursor + " IS NULL)";
        }
        return cursor + " > " + SqlQuote.literal(window.after().get()) + " AND " + cursor + " <= "
                + SqlQuote.literal(window.upTo());
    }

    /**
     * The statement that creates an enum, domain, range or composite type as the source defines it, for the fix of a
     * target that lacks it.
     */
    @Override
    public Optional<String> typeDefinition(String typeName) throws ConnectorException {
        requireNonNull(typeName, "typeName is null");
        try (ControlConnection control = connections.control("describing type " + typeName)) {
            return SourceDefinitions.typeStatement(control.connection(), typeName);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe type "
                    + typeName);
        }
    }

    @Override
    public Optional<ComputedColumns> computedColumns() {
        return Optional.of(new PostgresComputedColumns(this));
    }

    @Override
    public Optional<CursorReads> cursorReads() {
        return Optional.of(this::highestCursor);
    }

    /** {@code max(cursor)} over the table or query, as PostgreSQL's text form of the cursor's type. */
    private Optional<String> highestCursor(String cursor) throws ConnectorException {
        requireNonNull(cursor, "cursor is null");
        SourceRelation resolved = relation();
        String sql = "SELECT max(" + cursor + ")::text FROM " + resolved.fromClause()
                + filter.map(f -> " WHERE (" + f + ")").orElse("");
        try (ControlConnection control = connections.control("reading the highest " + cursor + " of " + describe());
             java.sql.Statement s = control.connection().createStatement();
             java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return Optional.ofNullable(rs.getString(1));
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (state.startsWith("42") && !state.equals("42501")) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG314, "the incremental cursor " + cursor
                        + " is not a column or expression of " + describe() + ": "
                        + PartitionKey.firstLine(e.getMessage()), "name a column of the source, or an expression "
                        + "over its columns, whose values only grow (an updated_at, an id)");
            }
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the highest value "
                    + "of the incremental cursor " + cursor + " of " + describe());
        }
    }

    private PartitionPlanner planner(Distribution distribution) throws ConnectorException {
        return switch (distribution.method()) {
            case NONE -> context -> List.of(whole(context));
            case CTID -> new CtidPlanner();
            case RANGE -> new RangePlanner(key(distribution));
            case NTILE -> new NtilePlanner(key(distribution));
            case MODULO -> new ModuloPlanner(key(distribution));
            case DATA_DRIVEN -> new DataDrivenPlanner(key(distribution), distribution.valuesQuery());
        };
    }

    private static PgPartition whole(PlanContext context) {
        return PgPartition.of("all", context.relation().fromClause(), Optional.empty(), context.total().rows(),
                context.total().bytes(), true);
    }

    private static String key(Distribution distribution) throws ConnectorException {
        return distribution.key().filter(k -> !k.isBlank()).orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, PG312, "distribution " + distribution.method().specName()
                + " needs a key", "add key: <column or SQL expression> to the distribution"));
    }

    /**
     * Rebuilds a partition from its checkpoint, bound to this source's table or query: a checkpoint of another
     * relation is refused, since its condition would select other rows (or fail) here.
     */
    @Override
    public Optional<SourcePartition> restore(String checkpoint) throws ConnectorException {
        requireNonNull(checkpoint, "checkpoint is null");
        SourceRelation resolved = relation();
        try {
            return Optional.of(PgPartition.fromCheckpoint(checkpoint, resolved.fromClause()));
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG313, e.getMessage(),
                    "resume with the source table or query the run started with, or start a new run (without "
                            + "--resume)");
        }
    }

    @Override
    public String readStatement(SourcePartition partition, SourceProjection projection) {
        if (!(partition instanceof PgPartition pg)) {
            throw new IllegalArgumentException("not a partition of a PostgreSQL source: " + partition.id());
        }
        return copyStatement(pg, projection);
    }

    static String copyStatement(PgPartition partition, SourceProjection projection) {
        return "COPY (" + partition.select(String.join(", ", projection.expressions())) + ") TO STDOUT (FORMAT "
                + (projection.format() == CopyFormat.BINARY ? "binary" : "text") + ")";
    }

    @Override
    public SourceSession openSession(Consistency consistency) throws ConnectorException {
        requireNonNull(consistency, "consistency is null");
        List<String> tables = tablesRead().stream().filter(TableLocks::lockable).map(ResolvedTable::quoted).toList();
        return PostgresSourceSession.open(connections, consistency, PostgresSource::copyStatement, describe(),
                tables, new TableLocks(connections, lockWaits), maskKeys);
    }

    @Override
    public Optional<SnapshotGroup> snapshotGroup() {
        return Optional.of(snapshotGroup);
    }

    @Override
    public Optional<ChangeSource> changes() {
        return changeSource.map(ChangeSource.class::cast);
    }

    PostgresConnections connections() {
        return connections;
    }

    LockWaits lockWaits() {
        return lockWaits;
    }

    MaskKeys maskKeys() {
        return maskKeys;
    }

    /** The tables this source reads that a snapshot's holder locks (views and the like are not). */
    List<ResolvedTable> lockableTables() throws ConnectorException {
        return tablesRead().stream().filter(TableLocks::lockable).toList();
    }

    @Override
    public void waitForLocks(LockWaits waits) {
        lockWaits = requireNonNull(waits, "waits is null");
    }

    @Override
    public Optional<RelationIdentity> copiedTable() throws ConnectorException {
        Optional<ResolvedTable> table = relation().table();
        if (table.isEmpty()) {
            return Optional.empty();
        }
        try (ControlConnection control = connections.control("identifying " + describe())) {
            return Optional.of(new RelationIdentity(new PostgresCatalog(control.connection())
                    .relationKey(table.get().oid()), table.get().quoted()));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot identify "
                    + describe());
        }
    }

    /** The objects of the schema of the table read (a query reads none), for a target that carries the schema. */
    @Override
    public Optional<SchemaObjects> schemaObjects() throws ConnectorException {
        Optional<ResolvedTable> table = relation().table();
        if (table.isEmpty()) {
            return Optional.empty();
        }
        try (ControlConnection control = connections.control("identifying the database of " + describe())) {
            return Optional.of(new PostgresSchemaObjects(connections, table.get(),
                    new PostgresCatalog(control.connection()).databaseKey(), feedPublication));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot identify the database of "
                    + describe());
        }
    }

    /** The definition of the table read (a query has none), for a target that creates its copy. */
    @Override
    public Optional<TableDefinition> tableDefinition() throws ConnectorException {
        Optional<ResolvedTable> table = relation().table();
        if (table.isEmpty()) {
            return Optional.empty();
        }
        SourcesAhead withNext = definitionsAhead;
        definitionsAhead = null; // for this plan only
        Optional<TableDefinition> read = withNext == null ? Optional.empty()
                : withNext.definition(tableName.orElseThrow(), table.get());
        if (read.isPresent()) {
            return read;
        }
        try (ControlConnection control = connections.qualifying("reading the definition of " + describe())) {
            return Optional.of(SourceDefinitions.read(control.connection(), table.get()));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the definition of "
                    + describe());
        }
    }

    @Override
    public Set<RelationIdentity> relations() throws ConnectorException {
        List<ResolvedTable> tables = tablesRead();
        try (ControlConnection control = connections.control("identifying what " + describe() + " reads")) {
            PostgresCatalog catalog = new PostgresCatalog(control.connection());
            Set<RelationIdentity> identities = new java.util.LinkedHashSet<>();
            for (ResolvedTable table : tables) {
                identities.add(new RelationIdentity(catalog.relationKey(table.oid()), table.quoted()));
            }
            return identities;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot identify what "
                    + describe() + " reads");
        }
    }

    @Override
    public List<LineageDataset> lineageInputs() throws ConnectorException {
        List<LineageDataset> names = new java.util.ArrayList<>();
        for (ResolvedTable table : tablesRead()) {
            names.add(LineageNames.table(connections, table.schema(),
                    table.name()));
        }
        return names;
    }

    /** The table, or the tables the query reads (views expanded); found once. */
    List<ResolvedTable> tablesRead() throws ConnectorException {
        SourceRelation resolved = relation();
        lock.lock();
        try {
            if (tablesRead == null) {
                if (resolved.table().isPresent()) {
                    tablesRead = List.of(resolved.table().get());
                } else {
                    try (ControlConnection control = connections.control("finding the tables " + describe()
                            + " reads")) {
                        tablesRead = new PostgresCatalog(control.connection()).tablesRead(resolved.fromClause());
                    } catch (SQLException e) {
                        throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE,
                                "cannot find the tables " + describe() + " reads");
                    }
                }
            }
            return tablesRead;
        } finally {
            lock.unlock();
        }
    }

    /** Resolves the table or describes the query once; later calls reuse the result. */
    /** Lets the server judge {@code where:} without reading a row: it must parse, and be a condition. */
    private static void checkFilter(PostgresCatalog catalog, SourceRelation relation, String condition)
            throws SQLException, ConnectorException {
        long type;
        try {
            type = catalog.expressionTypes(List.of("(" + condition + ")"), relation.fromClause()).getFirst();
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (!state.startsWith("42") || state.equals("42501")) {
                throw e;
            }
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG315, "where: " + condition + " is not a valid "
                    + "condition on " + relation.description() + ": " + PartitionKey.firstLine(e.getMessage()),
                    "write a SQL condition over the table's columns, e.g. where: \"status <> 'test'\"");
        }
        if (type != BOOLEAN_OID) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG315, "where: " + condition + " is a value of "
                    + "type " + catalog.typeName(type) + ", not a condition", "compare it, e.g. where: \"("
                    + condition + ") > 0\"");
        }
    }

    private static final long BOOLEAN_OID = 16;

    SourceRelation relation() throws ConnectorException {
        lock.lock();
        try {
            SourceAhead read = ahead;
            if (relation == null && read != null && filter.isEmpty()) {
                relation = SourceRelation.ofTable(read.table(), read.columns(), inherited);
            }
            if (relation == null) {
                try (ControlConnection control = connections.control("describing " + describe())) {
                    PostgresCatalog catalog = new PostgresCatalog(control.connection());
                    SourceRelation resolved = tableName.isPresent()
                            ? SourceRelation.ofTable(catalog, tableName.get(), inherited)
                            : SourceRelation.ofQuery(catalog, query.get());
                    if (filter.isPresent()) {
                        checkFilter(catalog, resolved, filter.get());
                    }
                    relation = resolved;
                } catch (SQLException e) {
                    throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE,
                            "cannot describe " + describe());
                }
            }
            return relation;
        } finally {
            lock.unlock();
        }
    }
}
