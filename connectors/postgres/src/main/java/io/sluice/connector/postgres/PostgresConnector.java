package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.TableNames;
import io.sluice.connector.postgres.read.PostgresSource;
import io.sluice.connector.postgres.read.SourcesAhead;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.write.ObjectCarriers;
import io.sluice.connector.postgres.write.PostgresTarget;
import io.sluice.connector.postgres.write.TableAccess;
import io.sluice.connector.postgres.write.TargetsAhead;

import io.sluice.connector.postgres.changes.ChangeSlot;
import io.sluice.spi.changes.ChangeFeedState;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceObject;
import io.sluice.spi.connector.Sources;
import io.sluice.spi.connector.Targets;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Source;
import io.sluice.spi.write.Target;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG101;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG102;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG108;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG104;
import static java.util.Objects.requireNonNull;

/** One {@code type: postgres} connection. Connects lazily; holds only the control connection between calls. */
public final class PostgresConnector implements Connector {
    private final PostgresConnections connections;
    private final List<String> notices;
    private final String ledgerSchema;
    /** What {@link #describeAhead} read, by table, until the source or target made for it takes it. */
    private final SourcesAhead sourcesAhead;
    private final TargetsAhead targetsAhead;
    /** Which stream carries each source schema's objects into this connection ({@code objects: all}). */
    private final ObjectCarriers objectCarriers = new ObjectCarriers();

    PostgresConnector(PostgresConnections connections, List<String> notices, String ledgerSchema) {
        this.connections = requireNonNull(connections, "connections is null");
        this.notices = List.copyOf(requireNonNull(notices, "notices is null"));
        this.ledgerSchema = requireNonNull(ledgerSchema, "ledgerSchema is null");
        this.targetsAhead = new TargetsAhead(connections);
        this.sourcesAhead = new SourcesAhead(connections);
    }

    @Override
    public java.util.Optional<Sources> sources() {
        return java.util.Optional.of(this::source);
    }

    /** The source side of a stream, from its validated {@code source:} options. */
    public Source source(Options sourceOptions) throws ConnectorException {
        Optional<String> table = sourceOptions.find(PostgresOptions.TABLE);
        Optional<String> query = sourceOptions.find(PostgresOptions.QUERY);
        if (table.isPresent() == query.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG102,
                    "a postgres source needs exactly one of table or query", "keep either table: or query:");
        }
        if (table.isPresent() && TableNames.isPattern(table.get())) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG101, "table pattern " + table.get() + " names "
                    + "many tables; the runner plans one stream per table (expandSource)", "report this as a bug");
        }
        Optional<ChangeSlot> changes = sourceOptions
                .find(PostgresOptions.CHANGES).map(c -> new ChangeSlot(
                        c.get(PostgresOptions.SLOT), c.find(PostgresOptions.PUBLICATION)
                        .orElse(c.get(PostgresOptions.SLOT))));
        if (table.isPresent()) {
            QualifiedName name = parse(table.get());
            return PostgresSource.ofTable(connections, name,
                    sourceOptions.find(PostgresOptions.INHERITED).orElse(true),
                    sourceOptions.find(PostgresOptions.WHERE).filter(w -> !w.isBlank()), changes,
                    sourcesAhead);
        }
        if (changes.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG109, "changes: follows a table's "
                    + "changes, and this source is a query", "read a table (a pattern for many), or remove changes:");
        }
        if (sourceOptions.isSet(PostgresOptions.WHERE)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG108, "where filters a table source, and this "
                    + "source is a query", "put the condition in the query's own WHERE, or read a table");
        }
        return PostgresSource.ofQuery(connections, query.get());
    }

    /**
     * A {@code table} pattern's tables (plain and partitioned, never a partition of one), those an {@code exclude}
     * pattern matches left out, by schema and name; each with its primary key and its size on disk.
     */
    @Override
    public Optional<List<SourceObject>> expandSource(Options sourceOptions) throws ConnectorException {
        Optional<String> table = sourceOptions.find(PostgresOptions.TABLE);
        if (table.isEmpty() || !TableNames.isPattern(table.get())) {
            return Optional.empty();
        }
        TableNames.Match include;
        List<TableNames.Match> excludes = new java.util.ArrayList<>();
        try {
            include = TableNames.pattern(table.get());
            for (String excluded : sourceOptions.find(PostgresOptions.EXCLUDE).orElse(List.of())) {
                excludes.add(TableNames.pattern(excluded));
            }
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG101, e.getMessage(), PostgresLint.TABLE_NAME_FIX);
        }
        String sql = "SELECT n.nspname, c.relname, ARRAY(SELECT a.attname FROM pg_index x, "
                + "unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a ON a.attrelid = c.oid "
                + "AND a.attnum = k.attnum WHERE x.indrelid = c.oid AND x.indisprimary ORDER BY k.ord), "
                + "pg_total_relation_size(c.oid), current_schema() FROM pg_class c "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') "
                + "AND NOT c.relispartition AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                + "AND n.nspname NOT LIKE 'pg\\_%' ORDER BY n.nspname, c.relname";
        List<SourceObject> objects = new java.util.ArrayList<>();
        try (ControlConnection control = connections.control("listing the tables of " + table.get());
             java.sql.Statement s = control.connection().createStatement();
             java.sql.ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                String schema = rs.getString(1);
                String name = rs.getString(2);
                boolean included = include.schema().isPresent() ? include.matches(schema, name)
                        : schema.equals(rs.getString(5)) && include.matches(schema, name);
                // An exclude without a schema leaves the name out in every schema.
                if (!included || excludes.stream().anyMatch(x -> x.matches(schema, name))) {
                    continue;
                }
                List<String> key = java.util.Arrays.stream((Object[]) rs.getArray(3).getArray())
                        .map(String::valueOf).toList();
                objects.add(new SourceObject(schema + "." + name, sourceOptions
                        .with(PostgresOptions.TABLE, QualifiedName.of(schema, name).quoted())
                        .without(PostgresOptions.EXCLUDE), java.util.Map.of("schema", schema, "table", name), key,
                        rs.getLong(4)));
            }
            return Optional.of(ownRowsWhereChildrenMatch(control.connection(), objects));
        } catch (java.sql.SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot list the tables of "
                    + table.get());
        }
    }

    /**
     * A matched table whose inheritance children the pattern matches too reads only its own rows ({@code inherited:
     * false}): each child's stream copies the child's, so no row is copied twice.
     */
    private static List<SourceObject> ownRowsWhereChildrenMatch(java.sql.Connection c, List<SourceObject> objects)
            throws java.sql.SQLException {
        java.util.Set<String> matched = new java.util.HashSet<>();
        objects.forEach(o -> matched.add(o.name()));
        java.util.Set<String> parents = new java.util.HashSet<>();
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT pn.nspname "
                + "|| '.' || p.relname, kn.nspname || '.' || k.relname FROM pg_inherits i JOIN pg_class p ON p.oid = "
                + "i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace JOIN pg_class k ON k.oid = i.inhrelid "
                + "JOIN pg_namespace kn ON kn.oid = k.relnamespace WHERE NOT k.relispartition")) {
            while (rs.next()) {
                if (matched.contains(rs.getString(1)) && matched.contains(rs.getString(2))) {
                    parents.add(rs.getString(1));
                }
            }
        }
        if (parents.isEmpty()) {
            return objects;
        }
        List<SourceObject> bound = new java.util.ArrayList<>();
        for (SourceObject o : objects) {
            bound.add(!parents.contains(o.name()) ? o : new SourceObject(o.name(),
                    o.options().with(PostgresOptions.INHERITED, false), o.names(), o.primaryKey(),
                    o.estimatedBytes()));
        }
        return bound;
    }

    /** A target {@code table} template filled with the matched table's names. */
    @Override
    public Options bindTarget(Options targetOptions, java.util.Map<String, String> names) throws ConnectorException {
        Optional<String> table = targetOptions.find(PostgresOptions.TABLE);
        if (table.isEmpty() || !TableNames.isTemplate(table.get())) {
            return targetOptions;
        }
        try {
            return targetOptions.with(PostgresOptions.TABLE, TableNames.fill(table.get(), names).quoted());
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG101, e.getMessage(), PostgresLint.TABLE_NAME_FIX);
        }
    }

    @Override
    public java.util.Optional<Targets> targets() {
        return java.util.Optional.of(this::target);
    }

    /** The target side of a stream, from its validated {@code target:} options. */
    public Target target(Options targetOptions) throws ConnectorException {
        String table = targetOptions.find(PostgresOptions.TABLE).orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, PG104, "a postgres target needs a table",
                "add table: schema.table"));
        QualifiedName name = parse(table);
        boolean objects = targetOptions.find(PostgresOptions.OBJECTS).map("all"::equals).orElse(false);
        boolean publications = targetOptions.find(PostgresOptions.PUBLICATIONS).map("copy"::equals).orElse(false);
        if (publications && !objects) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG243, "publications: copy on "
                    + name.quoted() + " without objects: all: publications are carried with the schema's other "
                    + "objects", "add objects: all to the target, or remove publications: copy");
        }
        return new PostgresTarget(connections, name, ledgerSchema,
                targetOptions.find(PostgresOptions.CREATE).map("if-missing"::equals).orElse(false),
                targetOptions.find(PostgresOptions.PRIMARY_KEY).orElse(List.of()),
                !targetOptions.find(PostgresOptions.DEFINITION).map("bare"::equals).orElse(false),
                new TableAccess(targetOptions.find(PostgresOptions.PRIVILEGES).map("copy"::equals).orElse(false),
                        targetOptions.find(PostgresOptions.OWNERS).orElse(Map.of())),
                objects ? Optional.of(objectCarriers) : Optional.empty(), publications, targetsAhead.take(name));
    }

    /**
     * A pattern's tables, read before they are planned one by one: as sources, each table, its columns and its row
     * estimate; as targets, each table with its columns and indexes (or, to be created, its schema's names), and what
     * a dead Sluice process of this host left on them ended. A thousand tables asked about twelve round trips each;
     * this asks a few in all. A read that fails leaves them to the per-table way, which says what is wrong.
     */
    @Override
    public void describeAhead(Role role, List<Options> options) throws ConnectorException {
        requireNonNull(role, "role is null");
        List<QualifiedName> names = new java.util.ArrayList<>();
        java.util.Map<QualifiedName, Boolean> inherited = new java.util.HashMap<>();
        java.util.Set<QualifiedName> unfiltered = new java.util.HashSet<>();
        java.util.Set<QualifiedName> created = new java.util.HashSet<>();
        for (Options o : options) {
            Optional<String> table = o.find(PostgresOptions.TABLE);
            if (table.isEmpty() || TableNames.isPattern(table.get()) || TableNames.isTemplate(table.get())) {
                continue;
            }
            QualifiedName name;
            try {
                name = QualifiedName.parse(table.get());
            } catch (IllegalArgumentException e) {
                continue; // the per-table way refuses it
            }
            names.add(name);
            if (role == Role.SOURCE) {
                inherited.put(name, o.find(PostgresOptions.INHERITED).orElse(true));
                if (o.find(PostgresOptions.WHERE).filter(w -> !w.isBlank()).isEmpty()) {
                    unfiltered.add(name);
                }
            } else if (o.find(PostgresOptions.CREATE).map("if-missing"::equals).orElse(false)) {
                created.add(name);
            }
        }
        if (names.isEmpty()) {
            return;
        }
        try (ControlConnection control = connections.control("reading ahead the " + names.size() + " tables of a "
                + "pattern")) {
            java.sql.Connection c = control.connection();
            if (role == Role.SOURCE) {
                sourcesAhead.read(c, names, inherited, unfiltered);
            } else {
                targetsAhead.read(c, names, created);
            }
        } catch (java.sql.SQLException e) {
            // Only a head start: each table is planned the per-table way, which reports what failed here too.
        }
    }


    private static QualifiedName parse(String table) throws ConnectorException {
        try {
            return QualifiedName.parse(table);
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG101, e.getMessage(),
                    PostgresLint.TABLE_NAME_FIX);
        }
    }

    /** {@code max_connections} minus the superuser reservation minus the client backends connected now. */
    @Override
    public java.util.OptionalInt freeConnections() throws ConnectorException {
        try (ControlConnection control = connections.control("counting the server's free connections");
             java.sql.Statement s = control.connection().createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('max_connections')::int - "
                     + "current_setting('superuser_reserved_connections')::int - (SELECT count(*) FROM "
                     + "pg_stat_activity WHERE backend_type = 'client backend')")) {
            rs.next();
            return java.util.OptionalInt.of(rs.getInt(1));
        } catch (java.sql.SQLException e) {
            return java.util.OptionalInt.empty(); // only a check ahead of time: the run still fails clearly later
        }
    }

    @Override
    public Optional<ChangeFeedState> changeFeedState(Options sourceOptions) throws ConnectorException {
        Optional<Options> changes = sourceOptions.find(PostgresOptions.CHANGES);
        if (changes.isEmpty() || !changes.get().isSet(PostgresOptions.SLOT)) {
            return Optional.empty();
        }
        String slot = changes.get().get(PostgresOptions.SLOT);
        long warnAbove = changes.get().find(PostgresOptions.RETAINED_WARNING_MB).orElse(1024L) * 1024 * 1024;
        try (ControlConnection control = connections.control("reading slot "
                + slot)) {
            return Optional.of(new ChangeSlot(slot, slot)
                    .state(control.connection()).map(s -> new ChangeFeedState(slot, true, s.active(),
                            s.walStatus(), Optional.of(s.confirmedFlush()).filter(c -> !c.isEmpty()), s.behindBytes(),
                            s.retainedBytes(), warnAbove))
                    .orElse(ChangeFeedState.gone(slot)));
        } catch (java.sql.SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE,
                    "cannot read slot " + slot);
        }
    }

    @Override
    public List<String> notices() {
        return notices;
    }

    @Override
    public void close() {
        // Every reader and writer closes its own connections. An embedded server may serve other connections of
        // the spec and stops when the JVM exits.
        connections.close();
    }
}
