package io.sluice.connector.postgres;

import io.sluice.spi.Column;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.LoadMode;
import io.sluice.spi.LoadPlan;
import io.sluice.spi.LoadRequest;
import io.sluice.spi.TargetTable;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static io.sluice.connector.postgres.PostgresCode.PG215;
import static io.sluice.connector.postgres.PostgresCode.PG216;
import static io.sluice.connector.postgres.PostgresCode.PG218;
import static io.sluice.connector.postgres.PostgresCode.PG219;
import static io.sluice.connector.postgres.PostgresCode.PG220;
import static io.sluice.connector.postgres.PostgresCode.PG221;
import static java.util.Objects.requireNonNull;

/**
 * One stream's load of a PostgreSQL table beyond its partitions' COPY, planned once at preflight: creating the table,
 * the shadow table of a replace and its swap, a merge's staging and keys, dropping and rebuilding indexes, sequences.
 * Every step that changes the database runs in a transaction that also writes its mark through {@link LoadMarks}, so
 * after a crash at any moment the marks say exactly what happened, and a resumed run does the rest (a step already
 * marked is skipped; a step that is not marked never committed).
 */
final class PostgresLoad {
    // The target's marks (LoadMarks keeps them apart from the runner's).
    static final String CREATED = "created";
    static final String SHADOW = "shadow";
    private static final String SHADOW_SUFFIX = "_sluice_shadow";
    private static final String KEYS_SUFFIX = "_sluice_keys";
    static final String SWAPPED = "swapped";
    static final String KEYS = "merge.keys";
    static final String DELETED = "merge.deleted";
    static final String INDEXES_DROPPED = "indexes.dropped";
    static final String INDEXES_BUILT = "indexes.built";
    static final String PRIMARY_KEY = "primary-key";
    /** Comments on the tables Sluice makes for itself: only a table that bears one is ever dropped as left over. */
    static final String OWN_TABLE_COMMENT = "sluice: ";

    private final PostgresConnections connections;
    private final PostgresLedgerStore ledger;
    private final LoadRequest request;
    private final String schema;
    private final String table;
    private final Optional<ResolvedTable> existing;
    private final List<Column> columns;
    private final List<String> primaryKey;
    private final List<String> mergeKey;
    private final List<IndexDefinition> dropped;
    private final List<String> statements;
    private final List<String> notes;
    private final MergeStatements merge;
    /** The source table's definition a created table gets ({@code definition: full}); empty: columns only. */
    private final Optional<CreatedDefinition> definition;
    /** The types the definition needs that the target lacks: created with the table. */
    private List<io.sluice.spi.TableDefinition.Type> missingTypes = List.of();
    /** The table's foreign keys to the run's tables, added once every stream is done ({@link ForeignKeys}). */
    private volatile List<ForeignKeys.Key> runKeys = List.of();
    /** The table exists and has those keys: they are dropped before the first stream. */
    private volatile boolean holdsKeys;
    private volatile TableLocks locks;
    /** A merge whose target held no row when this process began it: its partitions try a plain INSERT first. */
    private volatile boolean mergesIntoEmpty;
    /** This process alone loads the table (not a joined run): a replace may hold the old table for the run. */
    private volatile boolean alone;
    /**
     * A replace's open transaction holding the old table in SHARE mode from the shadow's creation to the swap, which
     * it runs: writers and DDL wait, so nothing written to the old table meanwhile is lost at the swap.
     */
    private volatile Connection guard;

    private PostgresLoad(PostgresConnections connections, PostgresLedgerStore ledger, LoadRequest request,
                         String schema, String table, Optional<ResolvedTable> existing, List<Column> columns,
                         List<String> primaryKey, List<String> mergeKey, List<IndexDefinition> dropped,
                         TableLocks locks, Optional<CreatedDefinition> definition) {
        this.definition = requireNonNull(definition, "definition is null");
        this.connections = requireNonNull(connections, "connections is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.request = requireNonNull(request, "request is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.table = requireNonNull(table, "table is null");
        this.existing = requireNonNull(existing, "existing is null");
        this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
        this.primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        this.mergeKey = List.copyOf(requireNonNull(mergeKey, "mergeKey is null"));
        this.dropped = List.copyOf(requireNonNull(dropped, "dropped is null"));
        this.locks = requireNonNull(locks, "locks is null");
        this.merge = new MergeStatements(quoted(), keysQuoted(), mergeKey, nullableKey(columns, mergeKey,
                existing.isEmpty() ? primaryKey : List.of()), request, () -> this.locks);
        this.statements = new ArrayList<>();
        this.notes = new ArrayList<>();
    }

    /**
     * Plans the load of {@code existing} with its columns {@code columnsGiven} (empty: the table is missing and
     * {@code create: if-missing} creates it with the source's columns {@code columnsGiven}), refusing what the target
     * cannot do before anything is written.
     */
    /** The statement that creates a type of the source, for the fix when the target lacks it. */
    @FunctionalInterface
    interface TypeDefinitions {
        Optional<String> of(String typeName) throws ConnectorException;
    }

    static PostgresLoad plan(PostgresConnections connections, PostgresLedgerStore ledger, LoadRequest request,
                             QualifiedName name, Optional<ResolvedTable> existing, List<Column> columnsGiven,
                             TypeDefinitions types, List<String> primaryKey, TableLocks locks, Connection c,
                             Optional<io.sluice.spi.TableDefinition> sourceDefinition)
            throws SQLException, ConnectorException {
        PostgresCatalog catalog = new PostgresCatalog(c);
        TargetCatalog target = new TargetCatalog(c);
        String schema = existing.map(ResolvedTable::schema)
                .orElseGet(() -> name.schema().orElse(null));
        if (schema == null) {
            schema = target.currentSchema();
        }
        String table = existing.map(ResolvedTable::name).orElse(name.name());
        // A definition comes with a table created for an append or a truncate; a merge needs its key at once and a
        // replace builds a shadow, so those create columns only (said in the plan).
        boolean defines = existing.isEmpty() && sourceDefinition.isPresent()
                && (request.mode() == LoadMode.APPEND || request.mode() == LoadMode.TRUNCATE);
        Optional<CreatedDefinition> definition = defines ? Optional.of(new CreatedDefinition(sourceDefinition.get(),
                schema, table, primaryKey.isEmpty())) : Optional.empty();
        // A created table with its definition keeps computed columns computed (the copy leaves them to the target).
        List<Column> columns = existing.isPresent() || defines ? columnsGiven : created(columnsGiven);
        Set<String> names = columns.stream().map(Column::name).collect(Collectors.toSet());
        for (String column : primaryKey) {
            requireColumn(names, column, "primary-key", schema, table);
        }
        List<IndexDefinition> indexes = existing.isPresent() ? target.indexes(existing.get().oid()) : List.of();
        List<String> mergeKey = request.mode() == LoadMode.MERGE
                ? mergeKey(request, existing, indexes, primaryKey, names, schema, table) : List.of();
        List<IndexDefinition> dropped = request.indexes() == LoadRequest.Indexes.REBUILD
                && request.mode() != LoadMode.REPLACE ? droppable(request, indexes, mergeKey) : List.of();
        PostgresLoad load = new PostgresLoad(connections, ledger, request, schema, table, existing, columns,
                primaryKey, mergeKey, dropped, locks, definition);
        List<String> nullable = nullableKey(columns, mergeKey, existing.isEmpty() ? primaryKey : List.of());
        if (request.deleteMissing() && !nullable.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG221, "delete-missing on " + load.quoted()
                    + " matches rows by merge key (" + String.join(", ", mergeKey) + "), and column(s) "
                    + String.join(", ", nullable) + " can hold NULL, which matches no key: such a row would be "
                    + "inserted and then deleted on every run", nullable.stream().map(k -> "ALTER TABLE "
                    + load.quoted() + " ALTER COLUMN " + SqlQuote.identifier(k) + " SET NOT NULL")
                    .collect(Collectors.joining("; ")) + ", or merge on columns that cannot be NULL");
        }
        if (request.indexes() == LoadRequest.Indexes.REBUILD && request.mode() != LoadMode.TRUNCATE) {
            for (IndexDefinition index : indexes) {
                if (index.unique() && !dropped.contains(index) && index.constraint().isEmpty()) {
                    load.notes.add("indexes: rebuild keeps unique index " + index.name() + ": the load relies on it "
                            + "to refuse duplicates (only a truncate, which starts empty, rebuilds unique indexes)");
                }
            }
        }
        if (existing.isEmpty()) {
            if (definition.isPresent()) {
                load.missingTypes = load.checkDefinitionNames(target, catalog, definition.get());
            }
            load.checkTypes(catalog, types);
            load.notes.add("table " + load.quoted() + " does not exist: the load creates it (create: if-missing)"
                    + (definition.isPresent() ? " with the source table's definition (definition: full)"
                    : sourceDefinition.isPresent() ? " with its columns only: a " + request.mode().name()
                    .toLowerCase(java.util.Locale.ROOT) + " load creates no keys, indexes or foreign keys (use "
                    + "truncate or append for a first copy that carries them)" : ""));
        } else if (!primaryKey.isEmpty()) {
            load.notes.add("primary-key is left alone: it applies only to a table the load creates");
        }
        if (request.mode() == LoadMode.REPLACE && existing.isPresent()) {
            load.checkReplaceable(target, existing.get());
        }
        if (existing.isPresent() && !dropped.isEmpty() && !target.look(existing.get().oid()).ownedByUser()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG203, "indexes: rebuild drops indexes of "
                    + load.quoted() + ", which only its owner may do, and user " + catalog.currentUser()
                    + " is not its owner", "run as the table's owner, or use indexes: keep");
        }
        load.describeStatements(indexes);
        return load;
    }

    private static List<Column> created(List<Column> sourceColumns) {
        List<Column> columns = new ArrayList<>();
        for (Column c : sourceColumns) {
            // A computed source column is copied as a value; identity stays identity (its sequence is reset after).
            columns.add(new Column(c.name(), c.typeName(), c.pgTypeOid(), c.nullable(),
                    c.generation() == Column.Generation.IDENTITY ? Column.Generation.IDENTITY : Column.Generation.NONE));
        }
        return columns;
    }

    private static void requireColumn(Set<String> names, String column, String key, String schema, String table)
            throws ConnectorException {
        if (!names.contains(column)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG219, key + " names column " + column + ", which "
                    + SqlQuote.identifier(schema) + "." + SqlQuote.identifier(table) + " does not have (columns: "
                    + String.join(", ", new java.util.TreeSet<>(names)) + ")", "name columns as the table spells them "
                    + "(case matters)");
        }
    }

    /** The merge key: the spec's, else the primary key; the target needs a plain unique index on exactly it. */
    private static List<String> mergeKey(LoadRequest request, Optional<ResolvedTable> existing,
                                         List<IndexDefinition> indexes, List<String> primaryKey, Set<String> names,
                                         String schema, String table) throws ConnectorException {
        String quoted = SqlQuote.identifier(schema) + "." + SqlQuote.identifier(table);
        List<String> key = request.mergeKey();
        if (key.isEmpty()) {
            key = existing.isPresent() ? indexes.stream()
                    .filter(i -> i.constraint().map(c -> c.type() == 'p').orElse(false)).findFirst()
                    .map(IndexDefinition::columns).orElse(List.of()) : primaryKey;
        }
        if (key.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG216, "load-mode merge needs a key, and "
                    + quoted + (existing.isPresent() ? " has no primary key" : " is created without one"),
                    "set merge-key: [columns] on the stream" + (existing.isPresent() ? "" : ", or primary-key on the "
                            + "target"));
        }
        for (String column : key) {
            requireColumn(names, column, "merge-key", schema, table);
        }
        if (existing.isPresent()) {
            Set<String> wanted = new HashSet<>(key);
            boolean unique = indexes.stream().anyMatch(i -> i.plainUnique() && new HashSet<>(i.columns())
                    .equals(wanted) && i.columns().size() == wanted.size());
            if (!unique) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG216, "merge-key (" + String.join(", ", key)
                        + ") has no unique index on exactly those columns on " + quoted + ": INSERT ... ON CONFLICT "
                        + "needs one to find a row's match", "CREATE UNIQUE INDEX ON " + quoted + " ("
                        + key.stream().map(SqlQuote::identifier).collect(Collectors.joining(", "))
                        + "), or name the columns of an existing unique index");
            }
        }
        return List.copyOf(key);
    }

    /**
     * The indexes a rebuild drops: every index that backs no constraint and is not unique, and, on a truncate load
     * (the table starts empty), unique indexes, primary keys and unique constraints no foreign key depends on.
     * Exclusion constraints stay, and so does every unique index of an append or a merge, which keep rows out.
     */
    private static List<IndexDefinition> droppable(LoadRequest request, List<IndexDefinition> indexes,
                                                   List<String> mergeKey) {
        Set<String> key = new HashSet<>(mergeKey);
        List<IndexDefinition> dropped = new ArrayList<>();
        for (IndexDefinition index : indexes) {
            if (index.referenced()) {
                continue;
            }
            if (!mergeKey.isEmpty() && index.plainUnique() && new HashSet<>(index.columns()).equals(key)) {
                continue;
            }
            if (request.mode() != LoadMode.TRUNCATE && index.unique()) {
                continue; // an append or a merge relies on it: without it duplicates would commit
            }
            boolean constraint = index.constraint().isPresent();
            if (!constraint || request.mode() == LoadMode.TRUNCATE && index.constraint().get().type() != 'x') {
                dropped.add(index);
            }
        }
        return dropped;
    }

    /**
     * The merge key columns that can hold NULL: of the table as it is, or, for a table the load creates, of the source,
     * unless the key is the created primary key ({@code createdPrimaryKey}), which makes them NOT NULL.
     */
    private static List<String> nullableKey(List<Column> columns, List<String> mergeKey,
                                            List<String> createdPrimaryKey) {
        if (!createdPrimaryKey.isEmpty() && new HashSet<>(createdPrimaryKey).equals(new HashSet<>(mergeKey))) {
            return List.of();
        }
        return columns.stream().filter(c -> mergeKey.contains(c.name()) && c.nullable()).map(Column::name).toList();
    }

    /** Types a created table needs must exist in the target database; all missing ones are listed at once. */
    private void checkTypes(PostgresCatalog catalog, TypeDefinitions types) throws SQLException, ConnectorException {
        try (java.sql.PreparedStatement p = catalog.connection().prepareStatement("SELECT 1 FROM pg_namespace WHERE "
                + "nspname = ?")) {
            p.setString(1, schema);
            try (java.sql.ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG214, "cannot create " + quoted()
                            + ": the target database has no schema " + SqlQuote.identifier(schema),
                            "CREATE SCHEMA " + SqlQuote.identifier(schema) + " in the target database first, or name "
                                    + "a schema that exists");
                }
            }
        }
        List<String> pseudo = new ArrayList<>();
        for (Column column : columns) {
            if (catalog.type(column.typeName()).filter(SessionFacts.KnownType::pseudo).isPresent()) {
                pseudo.add(column.name() + " " + column.typeName());
            }
        }
        if (!pseudo.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG214, "cannot create " + quoted()
                    + ": column(s) " + String.join(", ", pseudo) + " have a pseudo-type no table column can have",
                    "cast them in the source query to a real type (e.g. row_to_json(x)::jsonb, or x::text)");
        }
        List<String> missing = new ArrayList<>();
        Set<String> definitions = new LinkedHashSet<>();
        for (Column column : columns) {
            if (catalog.typeOid(column.typeName()).isEmpty() && !createdWithTable(column.typeName())) {
                missing.add(column.name() + " " + column.typeName());
                String element = column.typeName().replaceAll("(\\[\\])+$", "");
                types.of(element).ifPresent(definitions::add);
            }
        }
        if (!missing.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG214, "cannot create " + quoted()
                    + ": the target database has no type for column(s) " + String.join(", ", missing),
                    definitions.isEmpty() ? "create the types in the target database first (pg_dump --schema-only "
                            + "of the source shows them)" : "create them in the target database first: "
                            + String.join("; ", definitions));
        }
    }

    /** Whether {@code typeName} (perhaps an array of it, perhaps unqualified) is a type created with the table. */
    private boolean createdWithTable(String typeName) {
        String element = typeName.replaceAll("(\\[\\])+$", "");
        return missingTypes.stream().anyMatch(t -> t.name().equals(element) || t.name().endsWith("." + element));
    }

    /**
     * The definition's types the target lacks (created with the table); the sequences and partitions it creates must
     * not have names the target's schema has given to something else already.
     */
    private List<io.sluice.spi.TableDefinition.Type> checkDefinitionNames(TargetCatalog target,
                                                                        PostgresCatalog catalog,
                                                                        CreatedDefinition created)
            throws SQLException, ConnectorException {
        List<String> taken = new ArrayList<>();
        for (String name : created.relationNames()) {
            if (target.relationExists(schema, name)) {
                String other = created.renameTaken(name);
                if (target.relationExists(schema, other)) {
                    taken.add(name + " (and " + other + ")");
                }
            }
        }
        if (!taken.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG224, "cannot create " + quoted()
                    + " with its source's definition: schema " + SqlQuote.identifier(schema) + " has relations "
                    + "named as its sequences, partitions or indexes already: " + String.join(", ", taken),
                    "drop or rename them, or set definition: bare on the target to create the table with its "
                    + "columns only");
        }
        List<io.sluice.spi.TableDefinition.Type> missing = new ArrayList<>();
        for (io.sluice.spi.TableDefinition.Type type : created.types()) {
            if (catalog.typeOid(type.name()).isEmpty()) {
                missing.add(type);
            }
        }
        return missing;
    }

    /**
     * A swap renames tables, and what refers to the old table by OID would stay with it or block its drop: such
     * objects are refused with the reason, all at once, as are tables that are not plain ones and a user who may not
     * drop the old table.
     */
    private void checkReplaceable(TargetCatalog target, ResolvedTable resolved)
            throws SQLException, ConnectorException {
        List<String> reasons = new ArrayList<>();
        if (resolved.relkind() != 'r') {
            reasons.add("it is a " + resolved.kindName() + " (replace swaps plain tables; use truncate)");
        }
        TargetCatalog.Look look = target.look(resolved.oid());
        if (!look.ownedByUser()) {
            reasons.add("the user is not its owner (" + look.owner() + "), and only the owner may drop it");
        }
        for (String blocker : target.replaceBlockers(resolved.oid())) {
            reasons.add(blocker + " depends on it");
        }
        if (request.keepPrevious() && target.relationExists(schema, keptName())
                && !target.comment(schema, keptName()).orElse("").startsWith(OWN_TABLE_COMMENT)) {
            reasons.add("keep-previous keeps the old table as " + SqlQuote.identifier(keptName()) + ", a name a "
                    + "table that is not Sluice's has (rename or drop it)");
        }
        if (!reasons.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG215, "load-mode replace cannot swap "
                    + quoted() + ": " + String.join("; ", reasons), "use load-mode truncate (one transaction at "
                    + "degree 1: readers wait for the commit and never see the table empty), or remove what "
                    + "depends on the table");
        }
    }

    private void describeStatements(List<IndexDefinition> indexes) {
        switch (request.mode()) {
            case REPLACE -> {
                statements.add(existing.isPresent()
                        ? "CREATE TABLE " + shadowQuoted() + " (LIKE " + quoted() + " INCLUDING ALL EXCLUDING INDEXES)"
                        + " -- with its owner, grants, persistence and storage options"
                        : createStatement(shadowQuoted()));
                for (IndexDefinition index : indexes) {
                    statements.addAll(index.buildOn(shadowQuoted(), temporaryIndexName(index.name())));
                }
                primaryKeyStatement(shadowQuoted()).ifPresent(statements::add);
                statements.add("swap, in one transaction: LOCK TABLE " + quoted() + " IN ACCESS EXCLUSIVE MODE; "
                        + (request.keepPrevious() ? "ALTER TABLE " + quoted() + " RENAME TO "
                        + SqlQuote.identifier(keptName()) : "DROP TABLE " + quoted()) + "; ALTER TABLE "
                        + shadowQuoted() + " RENAME TO " + SqlQuote.identifier(table) + "; COMMIT");
            }
            case MERGE -> {
                if (existing.isEmpty()) {
                    statements.add(createStatement(quoted()));
                    statements.add(mergeKeyConstraint());
                }
                if (request.deleteMissing()) {
                    statements.add("CREATE TABLE " + keysQuoted() + " AS SELECT " + keyList("") + " FROM "
                            + quoted() + " WITH NO DATA");
                }
                statements.add("per partition: CREATE TEMP TABLE IF NOT EXISTS " + MergeStatements.STAGING
                        + " ...; COPY into it; " + applyStatement(mergeColumnsForPlan()) + (request.deleteMissing()
                        ? "; INSERT INTO " + keysQuoted() + " SELECT " + keyList("") + " FROM "
                        + MergeStatements.STAGING : ""));
                if (request.deleteMissing()) {
                    statements.add(deleteMissingStatement());
                }
            }
            default -> {
                if (definition.isPresent()) {
                    statements.addAll(definition.get().createStatements(columns, missingTypes));
                } else if (existing.isEmpty()) {
                    statements.add(createStatement(quoted()));
                }
            }
        }
        for (IndexDefinition index : dropped) {
            statements.add(index.dropStatement(quoted(), schema));
        }
        for (IndexDefinition index : dropped) {
            statements.addAll(index.buildOn(quoted(), index.name()));
        }
        if (request.mode() != LoadMode.REPLACE && request.mode() != LoadMode.MERGE) {
            primaryKeyStatement(quoted()).ifPresent(statements::add);
        }
        definition.ifPresent(d -> d.builds().forEach(b -> statements.add("after the load: " + b.statement())));
        if (resetsSequences()) {
            statements.add("SELECT setval(...) for each identity or serial sequence of the table, past its largest "
                    + "value");
        }
    }

    // ---- names

    String quoted() {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(table);
    }

    private String shadowName() {
        return DerivedName.of(table, SHADOW_SUFFIX);
    }

    /** The table and the tables a load derives from it (shadow, keys): what a run's sessions lock. */
    static List<String> relationsOf(String table) {
        return List.of(table, DerivedName.of(table, SHADOW_SUFFIX), DerivedName.of(table, KEYS_SUFFIX));
    }

    QualifiedName shadow() {
        return QualifiedName.of(schema, shadowName());
    }

    private String shadowQuoted() {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(shadowName());
    }

    private String keptName() {
        return DerivedName.of(table, "_old");
    }

    private String keysQuoted() {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(DerivedName.of(table, KEYS_SUFFIX));
    }

    private static String temporaryIndexName(String index) {
        return DerivedName.of(index, "_sluice_new");
    }

    /**
     * Plans the foreign keys between this table and the run's other tables ({@code copies}: the copies' names by
     * source relation): a created table's from its definition; an existing table's from its catalog, held off while
     * the streams load.
     */
    LoadPlan.AcrossStreams planAcrossStreams(Map<String, String> copies) throws ConnectorException {
        List<String> notes = new ArrayList<>();
        if (definition.isPresent()) {
            runKeys = definition.get().foreignKeys(copies, notes);
            return new LoadPlan.AcrossStreams(List.of(), ForeignKeys.statements(runKeys), notes);
        }
        // A truncate empties parents that the run's other tables refer to, which PostgreSQL refuses while the keys
        // stand; other modes keep a table's keys as they are. Only the table's owner may drop them.
        if (existing.isEmpty() || request.mode() != LoadMode.TRUNCATE || copies.isEmpty()) {
            return LoadPlan.AcrossStreams.NONE;
        }
        // One lease for both reads: the keys need qualified names, and the owner reads the same on any session.
        try (ControlConnection qualifying = connections.qualifying("reading the foreign keys of " + quoted())) {
            if (!new TargetCatalog(qualifying.connection()).look(existing.get().oid()).ownedByUser()) {
                return LoadPlan.AcrossStreams.NONE;
            }
            runKeys = ForeignKeys.between(qualifying.connection(), existing.get().oid(), quoted(),
                    List.copyOf(copies.values()));
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the foreign keys of "
                    + quoted());
        }
        holdsKeys = !runKeys.isEmpty();
        if (holdsKeys) {
            notes.add("its foreign keys to tables of this run are held off while the streams load (so the tables "
                    + "load in any order and can be emptied), then added back and validated");
        }
        return new LoadPlan.AcrossStreams(runKeys.stream().map(ForeignKeys.Key::drop).toList(),
                ForeignKeys.statements(runKeys), notes);
    }

    /**
     * Before the first stream: a table an unfinished earlier run of the spec created with its definition has that
     * run's unfinished builds and foreign keys taken over; an existing table's foreign keys to the run's tables are
     * recorded and dropped. One transaction, with the marks.
     */
    void beforeStreams(LoadMarks marks) throws ConnectorException {
        if (existing.isEmpty()) {
            return;
        }
        Map<String, Map<String, String>> earlier = marks.ofUnfinishedEarlierRuns();
        if (!holdsKeys && earlier.isEmpty()) {
            return;
        }
        inTransaction("holding the foreign keys of " + quoted() + " off for the run", (c, tx) -> {
            Map<String, String> done = marks.reading().apply(tx);
            if (!done.containsKey(CreatedDefinition.TABLE) && !done.containsKey(ForeignKeys.TABLE)) {
                done = adoptUnfinished(earlier, done, marks, tx);
            }
            if (holdsKeys && !done.containsKey(ForeignKeys.HELD)) {
                locks.lock(c, List.of(quoted()), TableLocks.Mode.ACCESS_EXCLUSIVE, "drop its foreign keys for the run",
                        ErrorKind.PREFLIGHT);
                ForeignKeys.hold(c, quoted(), runKeys, done, marks, tx);
            }
        });
    }

    /**
     * What unfinished earlier runs left to do on this table (builds of a table they created, foreign keys they owe),
     * written into this run's marks; returns the marks as they are now.
     */
    private Map<String, String> adoptUnfinished(Map<String, Map<String, String>> earlier, Map<String, String> done,
                                                LoadMarks marks, LedgerTransaction tx) throws ConnectorException {
        Map<String, String> now = new java.util.HashMap<>(done);
        for (Map<String, String> run : earlier.values()) {
            if (run.containsKey(CreatedDefinition.BUILDS) && !run.containsKey(CreatedDefinition.BUILT)
                    && !now.containsKey(CreatedDefinition.BUILDS)) {
                for (Map.Entry<String, String> mark : run.entrySet()) {
                    if (mark.getKey().startsWith("definition.")) {
                        marks.writing(mark.getKey(), mark.getValue()).apply(tx);
                        now.put(mark.getKey(), mark.getValue());
                    }
                }
            }
            if (ForeignKeys.owed(run)) {
                ForeignKeys.record(quoted(), ForeignKeys.recorded(run), now, marks, tx);
                now = marks.reading().apply(tx);
            }
        }
        return now;
    }

    /** The table the partitions' COPY writes: the shadow of a replace, a merge's staging table, else the target. */
    String copyTable() {
        return switch (request.mode()) {
            case REPLACE -> shadowQuoted();
            case MERGE -> MergeStatements.STAGING;
            default -> quoted();
        };
    }

    LoadRequest request() {
        return request;
    }

    /** Whether the target table exists now or is created by this load. */
    boolean creates() {
        return existing.isEmpty();
    }

    LoadPlan loadPlan() {
        return new LoadPlan(new TargetTable(quoted(), columns), statements, notes);
    }

    void waitForLocks(TableLocks locks) {
        this.locks = requireNonNull(locks, "locks is null");
    }

    private boolean resetsSequences() {
        return request.resetSequences().orElse(request.mode() == LoadMode.TRUNCATE
                || request.mode() == LoadMode.REPLACE || existing.isEmpty());
    }

    // ---- statements

    private String createStatement(String name) {
        return "CREATE TABLE " + name + " (" + columns.stream().map(c -> SqlQuote.identifier(c.name()) + " "
                + c.typeName() + (c.generation() == Column.Generation.IDENTITY ? " GENERATED BY DEFAULT AS IDENTITY"
                : "") + (c.nullable() ? "" : " NOT NULL")).collect(Collectors.joining(", ")) + ")";
    }

    private Optional<String> primaryKeyStatement(String on) {
        if (existing.isPresent() || primaryKey.isEmpty()) {
            return Optional.empty();
        }
        // Named for the table, not for the shadow it may be added to: the name must fit the table after the swap.
        return Optional.of("ALTER TABLE " + on + " ADD CONSTRAINT " + SqlQuote.identifier(DerivedName.of(table,
                "_pkey")) + " PRIMARY KEY (" + primaryKey.stream()
                .map(SqlQuote::identifier).collect(Collectors.joining(", ")) + ")");
    }

    /** For a merge into a table it creates: the key's constraint, at once, since ON CONFLICT needs it. */
    private String mergeKeyConstraint() {
        boolean isPrimary = !primaryKey.isEmpty() && new HashSet<>(primaryKey).equals(new HashSet<>(mergeKey));
        return "ALTER TABLE " + quoted() + " ADD " + (isPrimary ? "PRIMARY KEY" : "UNIQUE") + " (" + keyList("")
                + ")";
    }

    private List<Column> mergeColumnsForPlan() {
        return columns.stream().filter(c -> !c.isGenerated()).toList();
    }

    private String keyList(String prefix) {
        return merge.keyList(prefix);
    }

    private String applyStatement(List<Column> copied) {
        return merge.applyStatement(copied);
    }

    private String deleteMissingStatement() {
        return merge.deleteMissingStatement();
    }

    /** The merge's work in a partition's transaction before its COPY ({@link MergeStatements#before}). */
    BeforeCopy mergeBefore(List<Column> copied) {
        return merge.before(copied);
    }

    /** The merge's work at a partition's commit ({@link MergeStatements#after}). */
    AfterCopy mergeAfter(List<Column> copied) throws ConnectorException {
        return merge.after(copied, mergesIntoEmpty);
    }

    // ---- steps

    /** Before the first partition: create, the shadow, the merge's keys table, dropping indexes; each once. */
    /** Called when this process claims the table for itself (not a joined run's shared claim). */
    void holdsTableAlone() {
        alone = true;
    }

    /** Ends the replace's hold on the old table, if it is still held (the swap ends it by committing). */
    void releaseGuard() {
        Connection held = guard;
        guard = null;
        PostgresConnections.closeQuietly(held); // rolls the holding transaction back: the lock goes
    }

    /**
     * From the shadow's creation to the swap the old table is held in SHARE mode: readers go on, writers and DDL wait
     * (at most their own lock_timeout), so no row or definition they would add is lost when the shadow replaces it.
     */
    private void holdForReplace(Map<String, String> done) throws ConnectorException {
        if (request.mode() != LoadMode.REPLACE || existing.isEmpty() || !alone || guard != null
                || done.containsKey(SWAPPED)) {
            return;
        }
        Connection c = null;
        try {
            c = connections.open("holding " + quoted() + " while it is replaced");
            c.setAutoCommit(false);
            locks.lock(c, List.of(quoted()), TableLocks.Mode.SHARE, "keep writers and DDL out while the replace "
                    + "loads", ErrorKind.PREFLIGHT);
            guard = c;
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(c);
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "holding " + quoted());
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(c);
            throw e;
        }
    }

    /**
     * Prepares the target for the run's rows; {@code endLeftovers}: this run holds the table's claim alone, so it first
     * ends what a killed process of this run, or of an unfinished earlier run of the stream, left running on the
     * table or the tables the load derives from it ({@link LeftoverSessions}), waiting at most {@code patience}.
     */
    void begin(LoadMarks marks, boolean endLeftovers, java.time.Duration patience) throws ConnectorException {
        Map<String, Map<String, String>> earlier = marks.unfinishedEarlier();
        if (endLeftovers) {
            List<String> runIds = new ArrayList<>();
            runIds.add(marks.runId());
            runIds.addAll(earlier.keySet());
            LeftoverSessions.end(connections, schema, relationsOf(table), runIds, patience);
        }
        restoreEarlierRunsIndexes(earlier);
        if (request.mode() == LoadMode.REPLACE) {
            holdForReplace(read(marks));
        }
        Map<String, Map<String, String>> owedEarlier = existing.isPresent() ? marks.ofUnfinishedEarlierRuns()
                : Map.of();
        inTransaction("preparing the load of " + quoted(), (c, tx) -> {
            Map<String, String> done = marks.reading().apply(tx);
            TargetCatalog target = new TargetCatalog(c);
            if (request.mode() == LoadMode.REPLACE) {
                if (!done.containsKey(SHADOW)) {
                    createShadow(c, target, marks, tx);
                }
                return;
            }
            if (existing.isEmpty() && !done.containsKey(CREATED) && !target.relationExists(schema, table)) {
                if (definition.isPresent()) {
                    for (String statement : definition.get().createStatements(columns, missingTypes)) {
                        execute(c, statement);
                    }
                    definition.get().recordBuilds(marks, tx);
                    if (!runKeys.isEmpty()) {
                        ForeignKeys.record(quoted(), runKeys, done, marks, tx);
                    }
                } else {
                    execute(c, createStatement(quoted()));
                }
                if (request.mode() == LoadMode.MERGE) {
                    execute(c, mergeKeyConstraint());
                }
                marks.writing(CREATED, quoted()).apply(tx);
            } else if (existing.isPresent() && !done.containsKey(CreatedDefinition.TABLE)
                    && !done.containsKey(ForeignKeys.TABLE)) {
                // A run of one stream has no before-streams step: what an unfinished run owed is taken over here.
                adoptUnfinished(owedEarlier, done, marks, tx);
            }
            if (request.mode() == LoadMode.MERGE) {
                try (Statement s = c.createStatement();
                     java.sql.ResultSet rs = s.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM " + quoted() + ")")) {
                    rs.next();
                    mergesIntoEmpty = rs.getBoolean(1);
                }
            }
            if (request.mode() == LoadMode.MERGE && request.deleteMissing() && !done.containsKey(KEYS)) {
                String name = DerivedName.of(table, KEYS_SUFFIX);
                dropOwnLeftover(c, target, name);
                // Logged: the keys commit with each partition's DONE row and must survive whatever the ledger survives.
                execute(c, "CREATE TABLE " + keysQuoted() + " AS SELECT " + keyList("") + " FROM " + quoted()
                        + " WITH NO DATA");
                execute(c, "COMMENT ON TABLE " + keysQuoted() + " IS " + SqlQuote.literal(OWN_TABLE_COMMENT
                        + "keys merged into " + quoted() + " by run " + marks.runId()));
                marks.writing(KEYS, keysQuoted()).apply(tx);
                marks.writing(LoadMarks.LEFT_BEHIND, "keys table " + keysQuoted()).apply(tx);
            }
            if (request.indexes() == LoadRequest.Indexes.REBUILD && request.mode() != LoadMode.REPLACE
                    && existing.isPresent() && !done.containsKey(INDEXES_DROPPED)) {
                dropIndexes(c, marks, tx);
            }
        });
    }

    private void createShadow(Connection c, TargetCatalog target, LoadMarks marks, LedgerTransaction tx)
            throws SQLException, ConnectorException {
        dropOwnLeftover(c, target, shadowName());
        if (existing.isPresent()) {
            long oid = existing.get().oid();
            TargetCatalog.Look look = target.look(oid);
            execute(c, "CREATE " + (look.unlogged() ? "UNLOGGED " : "") + "TABLE " + shadowQuoted() + " (LIKE "
                    + quoted() + " INCLUDING ALL EXCLUDING INDEXES)" + (look.options().isEmpty() ? ""
                    : " WITH (" + String.join(", ", look.options()) + ")")
                    + look.tablespace().map(t -> " TABLESPACE " + SqlQuote.identifier(t)).orElse(""));
            if (!look.owner().equals(new PostgresCatalog(c).currentUser())) {
                execute(c, "ALTER TABLE " + shadowQuoted() + " OWNER TO " + SqlQuote.identifier(look.owner()));
            }
            for (String grant : target.grants(oid, shadowQuoted())) {
                execute(c, grant);
            }
            if (look.replicaIdentity() == 'f' || look.replicaIdentity() == 'n') {
                execute(c, "ALTER TABLE " + shadowQuoted() + " REPLICA IDENTITY "
                        + (look.replicaIdentity() == 'f' ? "FULL" : "NOTHING"));
            }
            for (String setting : target.tableSettings(oid, shadowQuoted())) {
                execute(c, setting); // row-level security, statistics targets, n_distinct: what LIKE leaves out
            }
        } else {
            execute(c, createStatement(shadowQuoted()));
        }
        execute(c, "COMMENT ON TABLE " + shadowQuoted() + " IS " + SqlQuote.literal(OWN_TABLE_COMMENT
                + "shadow of " + quoted() + " for run " + marks.runId()));
        marks.writing(SHADOW, shadowQuoted()).apply(tx);
        marks.writing(LoadMarks.LEFT_BEHIND, "shadow table " + shadowQuoted()).apply(tx);
    }

    /**
     * A table of the name Sluice needs, left by an earlier run that failed and was not resumed, is dropped; one that
     * is not Sluice's (no comment of its own) is refused instead.
     */
    private void dropOwnLeftover(Connection c, TargetCatalog target, String name)
            throws SQLException, ConnectorException {
        if (!target.relationExists(schema, name)) {
            return;
        }
        String quotedName = SqlQuote.identifier(schema) + "." + SqlQuote.identifier(name);
        if (!target.comment(schema, name).orElse("").startsWith(OWN_TABLE_COMMENT)) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG218, "the load needs the name " + quotedName
                    + ", and a table that is not Sluice's has it", "rename or drop " + quotedName);
        }
        execute(c, "DROP TABLE " + quotedName);
    }

    private void dropIndexes(Connection c, LoadMarks marks, LedgerTransaction tx)
            throws SQLException, ConnectorException {
        locks.lock(c, List.of(quoted()), TableLocks.Mode.ACCESS_EXCLUSIVE, "drop its indexes for the load",
                ErrorKind.PREFLIGHT);
        // The indexes as they are now, under the lock: since the plan an earlier run's lost indexes may have been
        // built again (restoreEarlierRunsIndexes), a primary key among them, whose index only its constraint drops.
        List<IndexDefinition> now = droppable(request, new TargetCatalog(c).indexes(existing.orElseThrow().oid()),
                mergeKey);
        if (now.isEmpty()) {
            return;
        }
        // The definitions first, in the same transaction as the drops: a crash leaves both or neither.
        for (int i = 0; i < now.size(); i++) {
            IndexDefinition index = now.get(i);
            marks.writing("index." + i + ".name", index.name()).apply(tx);
            marks.writing("index." + i + ".definition", index.definition()).apply(tx);
            marks.writing("index." + i + ".method", index.method()).apply(tx);
            marks.writing("index." + i + ".constraint", index.constraint()
                    .map(k -> k.type() + ":" + k.definition()).orElse("")).apply(tx);
        }
        for (IndexDefinition index : now) {
            execute(c, index.dropStatement(quoted(), schema));
        }
        marks.writing(INDEXES_DROPPED, String.valueOf(now.size())).apply(tx);
        marks.writing(LoadMarks.LEFT_BEHIND, now.size() + " index(es) of " + quoted() + " to build again")
                .apply(tx);
    }

    /** After the last partition: indexes, primary key, deletes, sequences, the swap; each once. */
    void finish(LoadMarks marks) throws ConnectorException {
        Map<String, String> done = read(marks);
        if (request.mode() == LoadMode.REPLACE) {
            if (!done.containsKey(SWAPPED)) {
                finishShadow(marks, done);
            }
            return;
        }
        if (done.containsKey(INDEXES_DROPPED) && !done.containsKey(INDEXES_BUILT)) {
            rebuildIndexes(done);
            inTransaction("recording the indexes of " + quoted(), (c, tx) -> {
                marks.writing(INDEXES_BUILT, Instant.now().toString()).apply(tx);
                marks.writing(LoadMarks.LEFT_BEHIND, "").apply(tx);
            });
        }
        if (done.containsKey(CreatedDefinition.BUILDS) && !done.containsKey(CreatedDefinition.BUILT)) {
            CreatedDefinition.build(connections, ledger, marks, done, schema, request.degree());
        }
        if (request.mode() != LoadMode.MERGE && done.containsKey(CREATED) && !primaryKey.isEmpty()
                && !done.containsKey(PRIMARY_KEY)) {
            inTransaction("adding the primary key of " + quoted(), (c, tx) -> {
                if (marks.reading().apply(tx).containsKey(PRIMARY_KEY)) {
                    return; // another process of a joined run added it while this one waited for the stream's row
                }
                execute(c, primaryKeyStatement(quoted()).orElseThrow());
                marks.writing(PRIMARY_KEY, String.join(", ", primaryKey)).apply(tx);
            });
        }
        if (request.mode() == LoadMode.MERGE && request.deleteMissing() && !done.containsKey(DELETED)) {
            inTransaction("deleting the rows the source did not have from " + quoted(), (c, tx) -> {
                Map<String, String> now = marks.reading().apply(tx);
                if (now.containsKey(DELETED)) {
                    return; // another process of the run got here first
                }
                requireCompleteKeys(c, marks.rowsDone().apply(tx));
                long deleted;
                try (Statement s = c.createStatement()) {
                    deleted = s.executeUpdate(deleteMissingStatement());
                    s.execute("DROP TABLE " + keysQuoted());
                }
                marks.writing(DELETED, String.valueOf(deleted)).apply(tx);
                marks.writing(LoadMarks.DELETED_ROWS, String.valueOf(deleted)).apply(tx);
                marks.writing(LoadMarks.LEFT_BEHIND, "").apply(tx);
            });
        }
        if (request.resetSequences().orElse(resetsSequences() || done.containsKey(CREATED)
                || done.containsKey(CreatedDefinition.TABLE))) {
            inTransaction("setting the sequences of " + quoted(), (c, tx) -> resetSequences(c, quoted(),
                    new TargetCatalog(c).ownedSequences(new PostgresCatalog(c)
                            .resolveTable(QualifiedName.of(schema, table)).orElseThrow().oid())));
        }
    }

    /**
     * The proof a delete-missing needs before it deletes: its keys table is there and logged (an UNLOGGED one, as
     * older releases made, is emptied by a server crash), it holds one key per row the done partitions wrote
     * ({@code rowsDone}, the ledger's count), and it is not empty while the target has rows (an empty source would
     * empty the target: a truncate says that on purpose).
     */
    private void requireCompleteKeys(Connection c, java.util.OptionalLong rowsDone)
            throws SQLException, ConnectorException {
        String fresh = "run the spec again without --resume: a fresh run merges every partition and collects the "
                + "keys anew";
        String persistence;
        try (java.sql.PreparedStatement p = c.prepareStatement("SELECT c.relpersistence FROM pg_class c JOIN "
                + "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            p.setString(1, schema);
            p.setString(2, DerivedName.of(table, KEYS_SUFFIX));
            try (java.sql.ResultSet rs = p.executeQuery()) {
                persistence = rs.next() ? rs.getString(1) : "";
            }
        }
        if (persistence.isEmpty()) {
            throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the keys table "
                    + keysQuoted() + " of this run is gone, so the rows the source has cannot be told from the rest; "
                    + "nothing was deleted", fresh);
        }
        if (!persistence.equals("p")) {
            throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the keys table "
                    + keysQuoted() + " is UNLOGGED (made by an older release), and a server crash empties such a "
                    + "table, so its keys cannot be proven complete; nothing was deleted", fresh);
        }
        long keys = count(c, keysQuoted());
        if (rowsDone.isPresent() && keys != rowsDone.getAsLong()) {
            throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the keys table "
                    + keysQuoted() + " holds " + keys + " key(s), but the run's done partitions merged "
                    + rowsDone.getAsLong() + " row(s) (the ledger's count), so its keys are not complete; nothing was "
                    + "deleted", fresh);
        }
        if (keys == 0) {
            long rows = count(c, quoted());
            if (rows > 0) {
                throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the source had no "
                        + "rows, so the DELETE would remove all " + rows + " row(s) of " + quoted() + "; nothing was "
                        + "deleted", "if the source is empty on purpose and the target must be emptied, use load-mode "
                        + "truncate; otherwise look at why the source is empty");
            }
        }
    }

    private static long count(Connection c, String quotedTable) throws SQLException {
        try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM "
                + quotedTable)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * After a failed stream: the indexes this run dropped are built again on what the table holds (the old rows, after
     * a one-transaction load rolled back), so a failed run leaves them as they were. A resume then loads with them.
     */
    void abort(LoadMarks marks) throws ConnectorException {
        Map<String, String> done = read(marks);
        if (done.containsKey(INDEXES_DROPPED) && !done.containsKey(INDEXES_BUILT)) {
            rebuildIndexes(done);
            inTransaction("recording the indexes of " + quoted(), (c, tx) -> {
                marks.writing(INDEXES_BUILT, "restored after the failure, " + Instant.now()).apply(tx);
                marks.writing(LoadMarks.LEFT_BEHIND, "").apply(tx);
            });
        }
    }

    /**
     * The indexes an earlier run of the spec dropped and never built again (it was killed, or its restore failed) and
     * that the table still lacks: built now, before this run touches the table, so no run loses an index for good.
     */
    private void restoreEarlierRunsIndexes(Map<String, Map<String, String>> unfinishedEarlier)
            throws ConnectorException {
        Map<String, IndexDefinition> lost = new java.util.LinkedHashMap<>();
        for (Map<String, String> earlier : unfinishedEarlier.values()) {
            if (earlier.containsKey(INDEXES_DROPPED) && !earlier.containsKey(INDEXES_BUILT)) {
                for (IndexDefinition index : droppedIn(earlier)) {
                    lost.putIfAbsent(index.name(), index);
                }
            }
        }
        if (lost.isEmpty() || existing.isEmpty()) {
            return;
        }
        List<List<String>> builds = new ArrayList<>();
        try (ControlConnection control = connections.control("checking the indexes of " + quoted())) {
            TargetCatalog target = new TargetCatalog(control.connection());
            for (IndexDefinition index : lost.values()) {
                builds.add(pending(target, index, quoted(), index.name()));
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the indexes of "
                    + quoted());
        }
        IndexBuilds.run(connections, builds, request.degree(), "building again the indexes of " + quoted()
                + " that an unfinished run dropped");
    }

    /** The definitions of the indexes a run dropped, as its marks keep them. */
    private static List<IndexDefinition> droppedIn(Map<String, String> marks) {
        int count = Integer.parseInt(marks.get(INDEXES_DROPPED));
        List<IndexDefinition> indexes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = marks.get("index." + i + ".name");
            String constraint = marks.getOrDefault("index." + i + ".constraint", "");
            indexes.add(new IndexDefinition(name, marks.get("index." + i + ".definition"),
                    marks.get("index." + i + ".method"), constraint.isEmpty() ? Optional.empty()
                    : Optional.of(new IndexDefinition.Constraint(name, constraint.charAt(0), constraint.substring(2))),
                    List.of(), false, false));
        }
        return indexes;
    }

    private Map<String, String> read(LoadMarks marks) throws ConnectorException {
        return ledger.inTransaction(marks.reading());
    }

    private void rebuildIndexes(Map<String, String> done) throws ConnectorException {
        List<List<String>> builds = new ArrayList<>();
        try (ControlConnection control = connections.control("checking the indexes of " + quoted())) {
            TargetCatalog target = new TargetCatalog(control.connection());
            for (IndexDefinition index : droppedIn(done)) {
                builds.add(pending(target, index, quoted(), index.name()));
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the indexes of "
                    + quoted());
        }
        IndexBuilds.run(connections, builds, request.degree(), "building the indexes of " + quoted());
    }

    /**
     * What is left of building {@code index} as {@code name} on {@code on}: nothing when it exists with its
     * constraint, the constraint alone when a crash came between the two, else everything.
     */
    private List<String> pending(TargetCatalog target, IndexDefinition index, String on, String name)
            throws SQLException {
        List<String> all = index.buildOn(on, name);
        if (!target.relationExists(schema, name)) {
            return all;
        }
        if (index.constraint().isEmpty() || index.constraint().get().type() == 'x' || target.hasConstraint(on, name)) {
            return List.of();
        }
        return all.subList(1, all.size());
    }


    private void finishShadow(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        List<IndexDefinition> indexes;
        List<TargetCatalog.ForeignKey> foreignKeys;
        List<List<String>> builds = new ArrayList<>();
        try (ControlConnection control = connections.control("reading " + quoted())) {
            TargetCatalog target = new TargetCatalog(control.connection());
            Optional<ResolvedTable> now = new PostgresCatalog(control.connection())
                    .resolveTable(QualifiedName.of(schema, table));
            indexes = now.isPresent() ? target.indexes(now.get().oid()) : List.of();
            foreignKeys = now.isPresent() ? target.foreignKeys(now.get().oid()) : List.of();
            for (IndexDefinition index : indexes) {
                builds.add(pending(target, index, shadowQuoted(), temporaryIndexName(index.name())));
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading " + quoted());
        }
        IndexBuilds.run(connections, builds, request.degree(), "building the indexes of " + shadowQuoted());
        inTransaction("completing " + shadowQuoted(), (c, tx) -> {
            TargetCatalog target = new TargetCatalog(c);
            execute(c, "ANALYZE " + shadowQuoted()); // the planner's statistics are there the moment it is swapped in
            for (TargetCatalog.ForeignKey key : foreignKeys) {
                if (!target.hasConstraint(shadowQuoted(), key.name())) {
                    execute(c, "ALTER TABLE " + shadowQuoted() + " ADD CONSTRAINT " + SqlQuote.identifier(key.name())
                            + " " + key.definition());
                }
            }
            Optional<String> primary = primaryKeyStatement(shadowQuoted());
            if (primary.isPresent() && !done.containsKey(PRIMARY_KEY)) {
                execute(c, primary.get());
                marks.writing(PRIMARY_KEY, String.join(", ", primaryKey)).apply(tx);
            }
            if (resetsSequences()) {
                // The shadow's identity sequences, and the serial ones the old table owns (the swap hands them over).
                PostgresCatalog catalog = new PostgresCatalog(c);
                List<TargetCatalog.OwnedSequence> sequences = new ArrayList<>(target.ownedSequences(
                        catalog.resolveTable(QualifiedName.of(schema, shadowName())).orElseThrow().oid()));
                Optional<ResolvedTable> old = catalog.resolveTable(QualifiedName.of(schema, table));
                if (old.isPresent()) {
                    target.ownedSequences(old.get().oid()).stream().filter(q -> q.dependency() == 'a')
                            .forEach(sequences::add);
                }
                resetSequences(c, shadowQuoted(), sequences);
            }
        });
        swap(marks, indexes);
    }

    /**
     * The swap, in one short transaction: the old table's lock (waited for at most lock-timeout; a timeout leaves
     * everything as it was), serial sequences handed to the new table, the old table dropped or kept, the shadow
     * renamed to the table's name and its indexes to their original names, the mark that it is done.
     */
    private void swap(LoadMarks marks, List<IndexDefinition> indexes) throws ConnectorException {
        inGuardOrTransaction("swapping " + shadowQuoted() + " in for " + quoted(), (c, tx) -> {
            if (marks.reading().apply(tx).containsKey(SWAPPED)) {
                return;
            }
            PostgresCatalog catalog = new PostgresCatalog(c);
            TargetCatalog target = new TargetCatalog(c);
            Optional<ResolvedTable> old = catalog.resolveTable(QualifiedName.of(schema, table));
            Optional<String> comment = Optional.empty();
            List<String> carried = List.of();
            Map<String, String> identityNames = Map.of();
            if (old.isPresent()) {
                locks.lock(c, List.of(quoted()), TableLocks.Mode.ACCESS_EXCLUSIVE, "swap in the new table",
                        ErrorKind.FAILED);
                refuseDrift(target, old.get().oid(), catalog.resolveTable(QualifiedName.of(schema, shadowName()))
                        .orElseThrow().oid());
                comment = target.look(old.get().oid()).comment();
                carried = target.indexSettings(old.get().oid(), quoted(), schema);
                identityNames = request.keepPrevious() ? Map.of() : identitySequenceNames(c, target, old.get().oid());
                Set<String> shadowColumns = new LinkedHashSet<>();
                catalog.columns(catalog.resolveTable(QualifiedName.of(schema, shadowName())).orElseThrow().oid())
                        .forEach(col -> shadowColumns.add(col.name()));
                for (TargetCatalog.OwnedSequence sequence : target.ownedSequences(old.get().oid())) {
                    if (sequence.dependency() == 'a' && shadowColumns.contains(sequence.column())) {
                        execute(c, "ALTER SEQUENCE " + sequence.sequence() + " OWNED BY " + shadowQuoted() + "."
                                + SqlQuote.identifier(sequence.column()));
                    }
                }
                if (request.keepPrevious()) {
                    dropOwnLeftover(c, target, keptName());
                    execute(c, "ALTER TABLE " + quoted() + " RENAME TO " + SqlQuote.identifier(keptName()));
                    String kept = SqlQuote.identifier(schema) + "." + SqlQuote.identifier(keptName());
                    for (IndexDefinition index : indexes) {
                        execute(c, "ALTER INDEX " + SqlQuote.identifier(schema) + "." + SqlQuote.identifier(index.name())
                                + " RENAME TO " + SqlQuote.identifier(DerivedName.of(index.name(), "_old")));
                    }
                    execute(c, "COMMENT ON TABLE " + kept + " IS " + SqlQuote.literal(OWN_TABLE_COMMENT
                            + "the previous " + quoted() + ", kept by run " + marks.runId()));
                } else {
                    execute(c, "DROP TABLE " + quoted());
                }
            }
            execute(c, "ALTER TABLE " + shadowQuoted() + " RENAME TO " + SqlQuote.identifier(table));
            for (IndexDefinition index : indexes) {
                execute(c, "ALTER INDEX " + SqlQuote.identifier(schema) + "."
                        + SqlQuote.identifier(temporaryIndexName(index.name())) + " RENAME TO "
                        + SqlQuote.identifier(index.name()));
            }
            execute(c, "COMMENT ON TABLE " + quoted() + " IS " + comment.map(SqlQuote::literal).orElse("NULL"));
            for (String setting : carried) {
                execute(c, setting); // index and constraint comments, replica identity index, CLUSTER ON
            }
            // The new table's identity sequences were named after the shadow: they take the old ones' names.
            Map<String, String> oldNames = identityNames;
            for (TargetCatalog.OwnedSequence sequence : target.ownedSequences(catalog.resolveTable(
                    QualifiedName.of(schema, table)).orElseThrow().oid())) {
                String name = oldNames.get(sequence.column());
                if (sequence.dependency() == 'i' && name != null) {
                    execute(c, "ALTER SEQUENCE " + sequence.sequence() + " RENAME TO " + SqlQuote.identifier(name));
                }
            }
            marks.writing(SWAPPED, Instant.now().toString()).apply(tx);
            marks.writing(LoadMarks.LEFT_BEHIND, "").apply(tx);
        });
    }

    /**
     * At the swap, under its lock: the old table's columns and grants must be what the shadow copied when it was made.
     * A column or grant added (or dropped) meanwhile would vanish with the old table, so the swap is refused instead.
     */
    private void refuseDrift(TargetCatalog target, long oldOid, long shadowOid)
            throws SQLException, ConnectorException {
        List<String> differences = new ArrayList<>();
        List<String> oldColumns = target.columnDefinitions(oldOid);
        List<String> newColumns = target.columnDefinitions(shadowOid);
        if (!oldColumns.equals(newColumns)) {
            differences.add("columns now (" + String.join(", ", oldColumns) + ") against (" + String.join(", ",
                    newColumns) + ") when the load began");
        }
        Set<String> oldGrants = new java.util.TreeSet<>(target.grants(oldOid, "t"));
        Set<String> newGrants = new java.util.TreeSet<>(target.grants(shadowOid, "t"));
        if (!oldGrants.equals(newGrants)) {
            differences.add("grants now [" + String.join("; ", oldGrants) + "] against [" + String.join("; ",
                    newGrants) + "] when the load began");
        }
        if (!differences.isEmpty()) {
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG222, quoted() + " changed while the replace "
                    + "loaded its new copy, and the swap would lose the change: " + String.join("; ", differences)
                    + "; the old table stays as it is", "start a fresh run (without --resume): its new copy takes "
                    + "the table's definition as it is then");
        }
    }

    /** The names (unqualified) of the table's identity sequences, by column. */
    private static Map<String, String> identitySequenceNames(Connection c, TargetCatalog target, long tableOid)
            throws SQLException {
        Map<String, String> names = new java.util.HashMap<>();
        for (TargetCatalog.OwnedSequence sequence : target.ownedSequences(tableOid)) {
            if (sequence.dependency() == 'i') {
                try (java.sql.PreparedStatement p = c.prepareStatement("SELECT relname FROM pg_class WHERE oid = "
                        + "?::regclass")) {
                    p.setString(1, sequence.sequence());
                    try (java.sql.ResultSet rs = p.executeQuery()) {
                        rs.next();
                        names.put(sequence.column(), rs.getString(1));
                    }
                }
            }
        }
        return names;
    }

    /** Moves each identity or serial sequence of the table past the largest value its column holds; never back. */
    private static void resetSequences(Connection c, String on, List<TargetCatalog.OwnedSequence> sequences)
            throws SQLException {
        for (TargetCatalog.OwnedSequence sequence : sequences) {
            String column = SqlQuote.identifier(sequence.column());
            execute(c, "SELECT setval(" + SqlQuote.literal(sequence.sequence()) + "::regclass, m) FROM (SELECT max("
                    + column + ")::bigint AS m FROM " + on + ") x WHERE m IS NOT NULL AND m > COALESCE("
                    + "pg_sequence_last_value(" + SqlQuote.literal(sequence.sequence()) + "::regclass), 0)");
        }
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @FunctionalInterface
    private interface Step {
        void run(Connection c, LedgerTransaction tx) throws SQLException, ConnectorException;
    }

    /**
     * Runs {@code step} in the transaction that holds the old table (a replace's guard), so no writer can slip in
     * between the hold and the swap; without one, as {@link #inTransaction}.
     */
    private void inGuardOrTransaction(String what, Step step) throws ConnectorException {
        Connection c = guard;
        if (c == null) {
            inTransaction(what, step);
            return;
        }
        try {
            step.run(c, ledger.rowsOn(c));
            c.commit();
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, what);
        } finally {
            releaseGuard();
        }
    }

    /** Runs {@code step} in one transaction on a connection of its own, with the ledger's rows on it. */
    private void inTransaction(String what, Step step) throws ConnectorException {
        try (Connection c = connections.open(what)) {
            c.setAutoCommit(false);
            try {
                step.run(c, ledger.rowsOn(c));
                c.commit();
            } catch (SQLException | ConnectorException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // closing rolls back too
                }
                throw e;
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, what);
        }
    }
}
