package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.DerivedName;
import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SessionFacts;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TablesAhead;
import io.sluice.connector.postgres.catalog.TargetCatalog;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * {@code create: if-missing}: the table the load creates, with its columns only or with the source table's definition
 * ({@code definition: full}: keys, indexes and checks built after the load), its {@code primary-key} added after the
 * load; and for a table that exists, what an unfinished earlier run left owed on it, taken over. The checks that a
 * created table can be created (its schema and types exist, its derived names are free) run at plan time.
 */
public final class CreateTable implements LoadStep {
    static final String CREATED = "created";
    static final String PRIMARY_KEY = "primary-key";

    /** The statement that creates a type of the source, for the fix when the target lacks it. */
    @FunctionalInterface
    public interface TypeDefinitions {
        Optional<String> of(String typeName) throws ConnectorException;
    }

    private final LoadTable table;
    private final List<String> primaryKey;
    private final Optional<CreatedDefinition> definition;
    private final RunForeignKeys runKeys;
    /** Run in the creating transaction after the table (a merge's key, which ON CONFLICT needs at once). */
    private final List<String> withCreate;
    /** Whether the primary key comes after the load (a merge's comes with the table, a replace's with its shadow). */
    private final boolean primaryKeyAfter;
    /** A missing schema is created with the table ({@code objects: all} carries the whole schema) instead of refused. */
    private final boolean createsSchema;
    /** What objects: all creates before the table: those types and functions are not missing. */
    private final BeforeTable before;
    /** The table's schema was missing at plan: the creating transaction creates it first. */
    private volatile boolean schemaMissing;
    /** The types the definition needs that the target lacks: created with the table. */
    private List<TableDefinition.Type> missingTypes = List.of();
    /** objects: all: the collations the definition's columns use that the target lacks, created before the table. */
    private List<String> missingCollations = List.of();
    /** What unfinished earlier runs owe on an existing table, read before the preparing transaction. */
    private volatile Map<String, Map<String, String>> owedEarlier = Map.of();

    CreateTable(LoadTable table, List<String> primaryKey, Optional<CreatedDefinition> definition,
                RunForeignKeys runKeys, List<String> withCreate, boolean primaryKeyAfter, boolean createsSchema,
                BeforeTable before) {
        this.table = requireNonNull(table, "table is null");
        this.primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        this.definition = requireNonNull(definition, "definition is null");
        this.runKeys = requireNonNull(runKeys, "runKeys is null");
        this.withCreate = List.copyOf(requireNonNull(withCreate, "withCreate is null"));
        this.primaryKeyAfter = primaryKeyAfter;
        this.createsSchema = createsSchema;
        this.before = java.util.Objects.requireNonNull(before, "before is null");
    }

    /** The columns a table created from {@code sourceColumns} gets without a definition. */
    static List<Column> columnsOf(List<Column> sourceColumns) {
        List<Column> columns = new ArrayList<>();
        for (Column c : sourceColumns) {
            // A computed source column is copied as a value; identity stays identity (its sequence is reset after).
            columns.add(new Column(c.name(), c.typeName(), c.copyTypeOid(), c.nullable(),
                    c.generation() == Column.Generation.IDENTITY ? Column.Generation.IDENTITY : Column.Generation.NONE));
        }
        return columns;
    }

    /**
     * At plan time, for a table the load creates: its schema, its columns' types and the names its definition gives
     * must be there (or free) in the target; all that is missing is listed at once. {@code schema}: the names of the
     * table's schema as read ahead of planning, if they were.
     */
    void check(PostgresCatalog catalog, TargetCatalog target, TypeDefinitions types, List<String> notes,
               Optional<TablesAhead.SchemaNames> schema) throws SQLException, ConnectorException {
        Names names = schema.isPresent()
                ? new Names(() -> schema.get().exists(), name -> schema.get().relations().contains(name))
                : new Names(() -> schemaExists(catalog), name -> target.relationExists(table.schema(), name));
        if (definition.isPresent()) {
            missingTypes = checkDefinitionNames(names, catalog, definition.get());
        }
        checkTypes(catalog, types, notes, names);
    }

    /** How the checks see the table's schema: its existence and the names taken in it. */
    private record Names(SqlCheck schemaExists, SqlTest<String> taken) {
    }

    @FunctionalInterface
    private interface SqlCheck {
        boolean test() throws SQLException;
    }

    @FunctionalInterface
    private interface SqlTest<T> {
        boolean test(T value) throws SQLException;
    }

    private boolean schemaExists(PostgresCatalog catalog) throws SQLException {
        try (PreparedStatement p = catalog.connection().prepareStatement("SELECT 1 FROM pg_namespace WHERE "
                + "nspname = ?")) {
            p.setString(1, table.schema());
            try (ResultSet rs = p.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Types a created table needs must exist in the target database; all missing ones are listed at once. */
    private void checkTypes(PostgresCatalog catalog, TypeDefinitions types, List<String> notes, Names names)
            throws SQLException, ConnectorException {
        boolean exists = names.schemaExists().test();
        if (!exists && createsSchema) {
            schemaMissing = true;
            notes.add("schema " + SqlQuote.identifier(table.schema()) + " does not exist: created with the table "
                    + "(objects: all carries the whole schema)");
        } else if (!exists && table.request().beforeHook()) {
            notes.add("schema " + SqlQuote.identifier(table.schema()) + " does not exist yet: the stream's "
                    + "before hook runs first and must create it");
        } else if (!exists) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG214, "cannot create "
                    + table.quoted() + ": the target database has no schema "
                    + SqlQuote.identifier(table.schema()), "CREATE SCHEMA " + SqlQuote.identifier(
                    table.schema()) + " in the target database first (or in the stream's before: hook), or "
                    + "name a schema that exists");
        }
        List<String> pseudo = new ArrayList<>();
        for (Column column : table.columns()) {
            if (catalog.type(column.typeName()).filter(SessionFacts.KnownType::pseudo).isPresent()) {
                pseudo.add(column.name() + " " + column.typeName());
            }
        }
        if (!pseudo.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG214, "cannot create " + table.quoted()
                    + ": column(s) " + String.join(", ", pseudo) + " have a pseudo-type no table column can have",
                    "cast them in the source query to a real type (e.g. row_to_json(x)::jsonb, or x::text)");
        }
        List<String> missing = new ArrayList<>();
        Set<String> definitions = new LinkedHashSet<>();
        for (Column column : table.columns()) {
            if (catalog.typeOid(column.typeName()).isEmpty() && !createdWithTable(column.typeName())
                    && !before.providesType(column.typeName())) {
                missing.add(column.name() + " " + column.typeName());
                String element = column.typeName().replaceAll("(\\[\\])+$", "");
                types.of(element).ifPresent(definitions::add);
            }
        }
        if (!missing.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG214, "cannot create " + table.quoted()
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
    private List<TableDefinition.Type> checkDefinitionNames(Names names, PostgresCatalog catalog,
                                                            CreatedDefinition created)
            throws SQLException, ConnectorException {
        List<String> taken = new ArrayList<>();
        for (String name : created.relationNames()) {
            if (names.taken().test(name)) {
                String other = created.renameTaken(name);
                if (names.taken().test(other)) {
                    taken.add(name + " (and " + other + ")");
                }
            }
        }
        if (!taken.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG224, "cannot create " + table.quoted()
                    + " with its source's definition: schema " + SqlQuote.identifier(table.schema()) + " has "
                    + "relations named as its sequences, partitions or indexes already: " + String.join(", ", taken),
                    "drop or rename them, or set definition: bare on the target to create the table with its "
                    + "columns only");
        }
        List<String> collations = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        for (TableDefinition.ColumnDefinition column : created.columns()) {
            if (column.collation().isPresent() && !catalog.collationExists(column.collation().get())) {
                collations.add("column " + SqlQuote.identifier(column.name()) + " is COLLATE "
                        + column.collation().get());
                column.collationStatement().filter(f -> !fixes.contains(f)).ifPresent(fixes::add);
            }
        }
        if (!collations.isEmpty() && createsSchema && fixes.size() == collations.size()) {
            // objects: all makes the schema as pg_dump would, its collations included (a locale the target lacks
            // fails that statement, before any row)
            missingCollations = fixes.stream().map(f -> "DO $sluice$ BEGIN " + f + "; EXCEPTION WHEN "
                    + "duplicate_object THEN NULL; END $sluice$").toList();
        } else if (!collations.isEmpty()) {
            // Not made with the table (as its types are): a collation needs the target's ICU or OS locale, which
            // only its administrator can vouch for (objects: all, a copy of the whole schema, makes it).
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG231, "cannot create " + table.quoted()
                    + " with its source's definition: the target database has no such collation: " + String.join(
                    "; ", collations), (fixes.isEmpty() ? "create the collation" : "create it as the source has "
                    + "it: " + String.join("; ", fixes)) + "; or set definition: bare on the target to create "
                    + "the table with its columns only (the database's default collation)");
        }
        refuseMissingRoutines(catalog, created.routines());
        List<TableDefinition.Type> missing = new ArrayList<>();
        for (TableDefinition.Type type : created.types()) {
            if (catalog.typeOid(type.name()).isEmpty()) {
                missing.add(type);
            }
        }
        return missing;
    }

    /** The plain {@code CREATE TABLE} of the table's columns, as {@code name}. */
    String statement(String name) {
        return "CREATE TABLE " + name + " (" + table.columns().stream().map(c -> SqlQuote.identifier(c.name()) + " "
                + c.typeName() + (c.generation() == Column.Generation.IDENTITY ? " GENERATED BY DEFAULT AS IDENTITY"
                : "") + (c.nullable() ? "" : " NOT NULL")).collect(Collectors.joining(", ")) + ")";
    }

    /** The created table's primary key added to {@code on}; empty for a table that exists or has none. */
    Optional<String> primaryKeyStatement(String on) {
        if (table.existing().isPresent() || primaryKey.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(addKey(on));
    }

    /**
     * The statement that adds the key, whether or not the table existed when this run was planned: a resumed run (or
     * a fresh one after an unfinished run) finds the table its creator made and still owes its key.
     */
    private String addKey(String on) {
        // Named for the table, not for the shadow it may be added to: the name must fit the table after the swap.
        return "ALTER TABLE " + on + " ADD CONSTRAINT " + SqlQuote.identifier(DerivedName.of(table.name(), "_pkey"))
                + " PRIMARY KEY (" + primaryKey.stream().map(SqlQuote::identifier).collect(Collectors.joining(", "))
                + ")";
    }

    /** The primary key's columns, as its mark keeps them. */
    String primaryKeyColumns() {
        return String.join(", ", primaryKey);
    }

    private boolean hasPrimaryKey(Connection c) throws SQLException {
        try (java.sql.PreparedStatement p = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE "
                + "conrelid = to_regclass(?) AND contype = 'p')")) {
            p.setString(1, table.quoted());
            try (java.sql.ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    @Override
    public void describe(List<String> statements) {
        if (schemaMissing && table.existing().isEmpty()) {
            statements.add(schemaStatement());
        }
        if (definition.isPresent()) {
            statements.addAll(missingCollations);
            statements.addAll(definition.get().createStatements(table.columns(), missingTypes));
        } else if (table.existing().isEmpty()) {
            statements.add(statement(table.quoted()));
        }
        if (table.existing().isEmpty()) {
            statements.addAll(withCreate);
        }
        if (primaryKeyAfter) {
            primaryKeyStatement(table.quoted()).ifPresent(statements::add);
        }
        definition.ifPresent(d -> d.builds().forEach(b -> statements.add("after the load: " + b.statement())));
    }

    /** The schema, created once whichever of the schema's tables gets there first (the others' transactions wait). */
    private String schemaStatement() {
        return schemaStatement(table.schema());
    }

    static String schemaStatement(String schema) {
        return "DO $sluice$ BEGIN CREATE SCHEMA IF NOT EXISTS " + SqlQuote.identifier(schema)
                + "; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $sluice$";
    }

    @Override
    public void hold(LoadMarks marks) throws ConnectorException {
        owedEarlier = table.existing().isPresent() ? marks.ofUnfinishedEarlierRuns() : Map.of();
    }

    /** A table to create, or what an unfinished earlier run owed on the one there. */
    @Override
    public boolean begins() {
        return table.existing().isEmpty() || !owedEarlier.isEmpty();
    }

    @Override
    public void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                      LedgerTransaction tx) throws SQLException, ConnectorException {
        if (table.existing().isEmpty() && !done.containsKey(CREATED)
                && !target.relationExists(table.schema(), table.name())) {
            if (schemaMissing) {
                LoadTable.execute(c, schemaStatement());
            }
            if (definition.isPresent()) {
                for (String statement : missingCollations) {
                    LoadTable.execute(c, statement);
                }
                for (String statement : definition.get().createStatements(table.columns(), missingTypes)) {
                    try {
                        LoadTable.execute(c, statement);
                    } catch (SQLException e) {
                        throw missingFromDefinition(e).orElseThrow(() -> e);
                    }
                }
                definition.get().recordBuilds(marks, tx);
                runKeys.recordCreated(done, marks, tx);
            } else {
                LoadTable.execute(c, statement(table.quoted()));
            }
            for (String statement : withCreate) {
                LoadTable.execute(c, statement);
            }
            marks.writing(CREATED, table.quoted()).apply(tx);
        } else if (table.existing().isPresent() && !done.containsKey(CreatedDefinition.TABLE)
                && !done.containsKey(ForeignKeys.TABLE)) {
            // A run of one stream has no before-streams step: what an unfinished run owed is taken over here.
            runKeys.adoptUnfinished(owedEarlier, done, marks, tx);
        }
        if (table.existing().isPresent() && primaryKeyAfter && !primaryKey.isEmpty() && !done.containsKey(CREATED)
                && owedEarlier.values().stream().anyMatch(run -> run.containsKey(CREATED)
                && !run.containsKey(PRIMARY_KEY))) {
            // An unfinished run created the table and died before its key: this run finishes the creation.
            marks.writing(CREATED, table.quoted()).apply(tx);
        }
    }

    /**
     * PG237 when a function the definition calls (a default, a check, an index) is missing on the target: the copy
     * carries no functions, and the creation would fail half-way through the run's first transaction.
     */
    private void refuseMissingRoutines(PostgresCatalog catalog, List<TableDefinition.Routine> called)
            throws SQLException, ConnectorException {
        Set<String> early = before.routines().signatures();
        List<TableDefinition.Routine> routines = called.stream().filter(r -> !before.provides(r, early)).toList();
        if (routines.isEmpty()) {
            return;
        }
        Set<String> absent = new LinkedHashSet<>();
        try (PreparedStatement p = catalog.connection().prepareStatement("SELECT s FROM unnest(?::text[]) "
                + "WITH ORDINALITY AS u(s, n) WHERE to_regprocedure(s) IS NULL ORDER BY n")) {
            p.setArray(1, catalog.connection().createArrayOf("text", routines.stream()
                    .map(TableDefinition.Routine::signature).toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    absent.add(rs.getString(1));
                }
            }
        }
        if (absent.isEmpty()) {
            return;
        }
        List<String> named = new ArrayList<>();
        Set<String> extensions = new LinkedHashSet<>();
        for (TableDefinition.Routine routine : routines) {
            if (absent.contains(routine.signature())) {
                named.add(routine.signature() + routine.extension().map(e -> " (extension " + e + ")").orElse(""));
                routine.extension().ifPresent(extensions::add);
            }
        }
        throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG237, "cannot create " + table.quoted()
                + " with its source's definition: it calls functions the target database does not have: "
                + String.join(", ", named) + "; nothing was created", (extensions.isEmpty() ? ""
                : extensions.stream().map(e -> "CREATE EXTENSION " + SqlQuote.identifier(e))
                .collect(Collectors.joining("; ")) + "; ") + "create the functions as the source has them "
                + "(pg_dump --schema-only of the source prints them), or set definition: bare to create the table "
                + "with columns, types and NOT NULL only");
    }

    /**
     * The source's definition names an object the target lacks that the copy does not carry (a function a default
     * calls, a schema, a sequence in another database): said as such, with the way to carry it, instead of a fix that
     * asks to check a spelling the user never wrote. The creating transaction rolls back: nothing is half made.
     */
    private Optional<ConnectorException> missingFromDefinition(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (!java.util.Set.of("42P01", "42883", "42704", "3F000").contains(state)) {
            return Optional.empty();
        }
        return Optional.of(new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG203, "creating "
                + table.quoted() + " with the source table's definition: " + e.getMessage().lines().findFirst()
                .orElse("") + " [SQLSTATE " + state + "]: the definition uses an object of the source database that "
                + "the target does not have and the copy does not carry; nothing was created",
                "create that object on the target first (pg_dump --schema-only of the source prints it), or set "
                + "definition: bare to create the table with columns, types and NOT NULL only", e));
    }

    @Override
    public void finish(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        if (done.containsKey(CreatedDefinition.BUILDS) && !done.containsKey(CreatedDefinition.BUILT)) {
            CreatedDefinition.build(table.connections(), table.ledger(), marks, done, table.schema(),
                    table.request().degree());
        }
        if (primaryKeyAfter && done.containsKey(CREATED) && !primaryKey.isEmpty()
                && !done.containsKey(PRIMARY_KEY)) {
            table.inTransaction("adding the primary key of " + table.quoted(), (c, tx) -> {
                if (marks.reading().apply(tx).containsKey(PRIMARY_KEY)) {
                    return; // another process of a joined run added it while this one waited for the stream's row
                }
                if (!hasPrimaryKey(c)) { // else someone gave the table its key meanwhile: it is not added twice
                    LoadTable.execute(c, addKey(table.quoted()));
                }
                marks.writing(PRIMARY_KEY, String.join(", ", primaryKey)).apply(tx);
            });
        }
    }
}
