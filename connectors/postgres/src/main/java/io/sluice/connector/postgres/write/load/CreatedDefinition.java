package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.DerivedName;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadPlan;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A table created with its source table's definition ({@code definition: full}), as pg_dump and pgcopydb split the
 * work: what the rows need or cannot break comes with the table (types, sequences, defaults, identity, generated
 * columns, checks, partitions, comments), in the transaction that creates it; keys and indexes are built after the
 * load, several at once; foreign keys between the run's tables once every stream is done ({@link ForeignKeys}). The
 * builds are written into the stream's marks when the table is created, so a resumed run, or a fresh one taking over
 * an unfinished run's table, finishes them from there; each is skipped when the catalog shows it done.
 */
public final class CreatedDefinition {
    /** The number of post-load builds; build i is {@code definition.build.i.kind}, {@code .name}, {@code .sql}. */
    static final String BUILDS = "definition.builds";
    static final String BUILT = "definition.built";
    /** The table the definition's marks are of, quoted. */
    static final String TABLE = "definition.table";

    private final TableDefinition definition;
    private final String schema;
    private final String table;
    /**
     * The names of relations the copy creates besides the table (sequences, partitions, indexes) that the target's
     * schema has given to something else: the copy's names for them ({@link #renameTaken}).
     */
    private final Map<String, String> renamed = new java.util.HashMap<>();
    private final String quoted;
    private final boolean keepsSourcePrimaryKey;

    /**
     * @param keepsSourcePrimaryKey false when the spec names the primary key itself ({@code primary-key}), which
     *                              then replaces the source's
     */
    CreatedDefinition(TableDefinition definition, String schema, String table, boolean keepsSourcePrimaryKey) {
        this.definition = requireNonNull(definition, "definition is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.table = table;
        this.quoted = SqlQuote.identifier(schema) + "." + SqlQuote.identifier(requireNonNull(table, "table is null"));
        this.keepsSourcePrimaryKey = keepsSourcePrimaryKey;
    }

    // ---- with the table

    /**
     * The statements that create the table with what its rows need, in one transaction: the types the target lacks
     * ({@code missingTypes}), the sequences (those the defaults draw from that no column owns first, at their source
     * names), the table, its partitions, comments.
     */
    List<String> createStatements(List<Column> columns, List<TableDefinition.Type> missingTypes) {
        List<String> statements = new ArrayList<>();
        for (TableDefinition.Type type : missingTypes) {
            // Two streams may need one type: whichever commits second finds it made.
            statements.add("DO $sluice$ BEGIN CREATE SCHEMA IF NOT EXISTS " + SqlQuote.identifier(type.schema())
                    + "; " + type.statement() + "; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; "
                    + "END $sluice$");
        }
        for (TableDefinition.StandaloneSequence sequence : definition.standaloneSequences()) {
            // Where the source has it, as the default names it; set to the source's value as pg_dump does. A sequence
            // two tables draw from is made by whichever stream commits first.
            String name = SqlQuote.identifier(sequence.schema()) + "." + SqlQuote.identifier(sequence.name());
            statements.add("DO $sluice$ BEGIN CREATE SCHEMA IF NOT EXISTS " + SqlQuote.identifier(sequence.schema())
                    + "; CREATE SEQUENCE " + name + " " + sequence.options()
                    + sequence.lastValue().map(v -> "; PERFORM setval(" + SqlQuote.literal(name) + "::regclass, "
                    + v + ")").orElse("")
                    + "; EXCEPTION WHEN duplicate_table OR unique_violation THEN NULL; END $sluice$");
        }
        for (TableDefinition.Sequence sequence : definition.sequences()) {
            statements.add("CREATE SEQUENCE " + sequenceName(sequence) + " " + sequence.options());
        }
        Map<String, TableDefinition.ColumnDefinition> byName = definition.columns().stream()
                .collect(Collectors.toMap(TableDefinition.ColumnDefinition::name, c -> c));
        List<String> elements = new ArrayList<>();
        for (Column column : columns) {
            elements.add(columnDefinition(column, Optional.ofNullable(byName.get(column.name()))));
        }
        for (TableDefinition.Constraint check : definition.constraints()) {
            if (check.type() == 'c' && !check.definition().endsWith(" NOT VALID")) {
                elements.add("CONSTRAINT " + SqlQuote.identifier(check.name()) + " " + check.definition());
            }
        }
        statements.add("CREATE " + (definition.unlogged() ? "UNLOGGED " : "") + "TABLE " + quoted + " ("
                + String.join(", ", elements) + ")"
                + definition.partitionKey().map(k -> " PARTITION BY " + k).orElse(""));
        for (TableDefinition.Sequence sequence : definition.sequences()) {
            statements.add("ALTER SEQUENCE " + sequenceName(sequence) + " OWNED BY " + quoted + "."
                    + SqlQuote.identifier(sequence.column()));
        }
        Set<String> created = columns.stream().map(Column::name).collect(Collectors.toSet());
        for (TableDefinition.Partition partition : definition.partitions()) {
            // A partition's own NOT NULL names (it was attached, not created as a partition) as the source has them
            List<String> own = new ArrayList<>();
            partition.notNullNames().forEach((column, name) -> {
                if (created.contains(column)) {
                    own.add(SqlQuote.identifier(column) + " WITH OPTIONS CONSTRAINT " + SqlQuote.identifier(name)
                            + " NOT NULL");
                }
            });
            statements.add("CREATE TABLE " + partitionName(partition.name()) + " PARTITION OF "
                    + partition.parent().map(this::partitionName).orElse(quoted) + " "
                    + (own.isEmpty() ? "" : "(" + String.join(", ", own) + ") ") + partition.bound()
                    + partition.partitionKey().map(k -> " PARTITION BY " + k).orElse(""));
        }
        definition.comment().ifPresent(c -> statements.add("COMMENT ON TABLE " + quoted + " IS "
                + SqlQuote.literal(c)));
        for (TableDefinition.ColumnDefinition column : definition.columns()) {
            column.comment().ifPresent(c -> statements.add("COMMENT ON COLUMN " + quoted + "."
                    + SqlQuote.identifier(column.name()) + " IS " + SqlQuote.literal(c)));
        }
        for (TableDefinition.Grant grant : definition.grants()) {
            if (grant.column().isEmpty() || created.contains(grant.column().get())) {
                statements.add(grantStatement(grant));
            }
        }
        // Last: the new owner takes the grants as granted; partitions are tables of their own to give away.
        for (String owner : definition.owner().stream().toList()) {
            statements.add("ALTER TABLE " + quoted + " OWNER TO " + SqlQuote.identifier(owner));
            for (TableDefinition.Partition partition : definition.partitions()) {
                statements.add("ALTER TABLE " + partitionName(partition.name()) + " OWNER TO "
                        + SqlQuote.identifier(owner));
            }
        }
        return statements;
    }

    /** The privilege keywords a grant may carry: those PostgreSQL 13 to 18 know for tables and columns. */
    public static final Set<String> PRIVILEGES = Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE",
            "REFERENCES", "TRIGGER", "MAINTAIN");

    /** {@code GRANT} of one source privilege on the created table (the keyword checked against {@link #PRIVILEGES}). */
    private String grantStatement(TableDefinition.Grant grant) {
        if (!PRIVILEGES.contains(grant.privilege())) {
            throw new IllegalArgumentException("privilege " + grant.privilege() + " is not a table privilege");
        }
        return "GRANT " + grant.privilege() + grant.column().map(c -> " (" + SqlQuote.identifier(c) + ")").orElse("")
                + " ON " + quoted + " TO " + grant.grantee().map(SqlQuote::identifier).orElse("PUBLIC")
                + (grant.grantable() ? " WITH GRANT OPTION" : "");
    }

    private String columnDefinition(Column column, Optional<TableDefinition.ColumnDefinition> defined) {
        StringBuilder sql = new StringBuilder(SqlQuote.identifier(column.name())).append(' ')
                .append(column.typeName());
        defined.flatMap(TableDefinition.ColumnDefinition::collation).ifPresent(c -> sql.append(" COLLATE ").append(c));
        if (defined.isPresent() && defined.get().generatedExpression().isPresent() && column.isGenerated()) {
            sql.append(" GENERATED ALWAYS AS (").append(defined.get().generatedExpression().get()).append(") ")
                    .append(column.generation() == Column.Generation.VIRTUAL ? "VIRTUAL" : "STORED");
        } else if (defined.isPresent() && defined.get().identity().isPresent()) {
            TableDefinition.ColumnDefinition d = defined.get();
            String sequence = d.identitySequence().map(q -> "SEQUENCE NAME " + SqlQuote.identifier(schema) + "."
                    + SqlQuote.identifier(nameOf(q)) + " ").orElse("");
            sql.append(" GENERATED ").append(d.identity().get()).append(" AS IDENTITY (").append(sequence)
                    .append(d.identityOptions().orElse("")).append(")");
        } else if (column.generation() == Column.Generation.IDENTITY) {
            sql.append(" GENERATED BY DEFAULT AS IDENTITY");
        } else {
            defined.flatMap(TableDefinition.ColumnDefinition::defaultExpression)
                    .ifPresent(d -> sql.append(" DEFAULT ").append(ownSequences(d)));
        }
        if (!column.nullable()) {
            defined.flatMap(TableDefinition.ColumnDefinition::notNullName)
                    .ifPresent(n -> sql.append(" CONSTRAINT ").append(SqlQuote.identifier(n)));
            sql.append(" NOT NULL");
        }
        return sql.toString();
    }

    /** A default that draws from a sequence the column owns draws from the copy's sequence instead. */
    private String ownSequences(String expression) {
        String rewritten = expression;
        for (TableDefinition.Sequence sequence : definition.sequences()) {
            rewritten = rewritten.replace(SqlQuote.literal(sequence.qualifiedName()) + "::regclass",
                    SqlQuote.literal(sequenceName(sequence)) + "::regclass");
        }
        return rewritten;
    }

    private String sequenceName(TableDefinition.Sequence sequence) {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(nameOf(sequence.name()));
    }

    private String partitionName(String name) {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(nameOf(name));
    }

    private String nameOf(String sourceName) {
        return renamed.getOrDefault(sourceName, sourceName);
    }

    /**
     * The relations the copy creates besides the table, by their source names: sequences (serial and identity),
     * partitions, and the indexes of keys and of the table; each must be free in the target's schema.
     */
    List<String> relationNames() {
        List<String> names = new ArrayList<>();
        definition.sequences().forEach(q -> names.add(q.name()));
        definition.columns().forEach(c -> c.identitySequence().ifPresent(names::add));
        definition.partitions().forEach(p -> names.add(p.name()));
        for (TableDefinition.Constraint constraint : definition.constraints()) {
            if (constraint.type() == 'p' || constraint.type() == 'u' || constraint.type() == 'x') {
                names.add(constraint.name());
            }
        }
        definition.indexes().forEach(i -> names.add(i.name()));
        return names;
    }

    /**
     * A name the target's schema uses already (the copy goes into the source's own database under another name, say)
     * gets the table's name in place of the source table's ({@code orders_pkey} of {@code published_orders} becomes
     * {@code published_orders_pkey}); returns that name, which the caller checks in turn.
     */
    String renameTaken(String sourceName) {
        String name = sourceName.startsWith(definition.name()) && !definition.name().equals(table)
                ? DerivedName.of(table, sourceName.substring(definition.name().length()))
                : DerivedName.of(table + "_" + sourceName, "");
        renamed.put(sourceName, name);
        return name;
    }

    /** The source's column definitions (collations, defaults, identity) the table is created with. */
    List<TableDefinition.ColumnDefinition> columns() {
        return definition.columns();
    }

    List<TableDefinition.Type> types() {
        return definition.types();
    }

    /** The functions the definition calls, which the copy does not create. */
    List<TableDefinition.Routine> routines() {
        return definition.routines();
    }

    // ---- after the load

    /** One build after the load: a constraint added to the table, or an index created on it. */
    record Build(boolean constraint, String name, String statement) {
        Build {
            requireNonNull(name, "name is null");
            requireNonNull(statement, "statement is null");
        }

        /** Whether the catalog shows it done already (a crash came after it committed). */
        boolean doneIn(Connection c, String table, String schema) throws SQLException {
            TargetCatalog catalog = new TargetCatalog(c);
            return constraint ? catalog.hasConstraint(table, name) : catalog.relationExists(schema, name);
        }
    }

    /** Keys, exclusion constraints, checks the source had not validated, and indexes: each one build. */
    List<Build> builds() {
        List<Build> builds = new ArrayList<>();
        for (TableDefinition.Constraint constraint : definition.constraints()) {
            boolean key = constraint.type() == 'u' || constraint.type() == 'x'
                    || constraint.type() == 'p' && keepsSourcePrimaryKey;
            boolean lateCheck = constraint.type() == 'c' && constraint.definition().endsWith(" NOT VALID");
            if (key || lateCheck) {
                builds.add(new Build(true, nameOf(constraint.name()), "ALTER TABLE " + quoted + " ADD CONSTRAINT "
                        + SqlQuote.identifier(nameOf(constraint.name())) + " " + constraint.definition()));
            }
        }
        for (TableDefinition.Index index : definition.indexes()) {
            builds.add(new Build(false, nameOf(index.name()), "CREATE " + (index.unique() ? "UNIQUE " : "") + "INDEX "
                    + SqlQuote.identifier(nameOf(index.name())) + " ON " + quoted + " " + index.method()));
        }
        return builds;
    }

    /**
     * The source's foreign keys between copies: a key whose referenced table a stream of the run copies into this
     * database ({@code copies}, by source relation key) refers to that copy; any other is left out, and said in
     * {@code notes}.
     */
    List<ForeignKeys.Key> foreignKeys(Map<String, String> copies, List<String> notes) {
        List<ForeignKeys.Key> keys = new ArrayList<>();
        for (TableDefinition.Constraint constraint : definition.constraints()) {
            if (!constraint.isForeignKey()) {
                continue;
            }
            String referenced = constraint.references().map(r -> copies.get(r.key())).orElse(null);
            String display = constraint.references().map(RelationIdentity::display).orElse("?");
            if (referenced == null || constraint.referencedName().isEmpty()) {
                notes.add("warning: foreign key " + constraint.name() + " of " + quoted + " references " + display
                        + ", which no stream of this run copies into this database: it is left out; add it once "
                        + "that table is there: ALTER TABLE " + quoted + " ADD CONSTRAINT "
                        + SqlQuote.identifier(constraint.name()) + " " + constraint.definition());
                continue;
            }
            keys.add(ForeignKeys.Key.of(quoted, constraint.name(), constraint.definition().replace("REFERENCES "
                    + constraint.referencedName().get() + "(", "REFERENCES " + referenced + "(")));
        }
        return keys;
    }

    /** Writes the builds left after the table's creation into the marks, in the creating transaction. */
    void recordBuilds(LoadMarks marks, LedgerTransaction tx) throws ConnectorException {
        marks.writing(TABLE, quoted).apply(tx);
        List<Build> builds = builds();
        for (int i = 0; i < builds.size(); i++) {
            marks.writing("definition.build." + i + ".kind", builds.get(i).constraint() ? "constraint" : "index")
                    .apply(tx);
            marks.writing("definition.build." + i + ".name", builds.get(i).name()).apply(tx);
            marks.writing("definition.build." + i + ".sql", builds.get(i).statement()).apply(tx);
        }
        marks.writing(BUILDS, String.valueOf(builds.size())).apply(tx);
    }

    /** The builds recorded in {@code done} (a stream's marks), in order. */
    static List<Build> recordedBuilds(Map<String, String> done) {
        int count = Integer.parseInt(done.getOrDefault(BUILDS, "0"));
        List<Build> builds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String at = "definition.build." + i;
            builds.add(new Build("constraint".equals(done.get(at + ".kind")), done.get(at + ".name"),
                    done.get(at + ".sql")));
        }
        return builds;
    }

    /**
     * After the load: the builds {@code done} records that the catalog does not show yet, at most {@code degree} at
     * once (indexes of one table build side by side; its constraints queue on the table's lock), then the mark.
     */
    static void build(PostgresConnections connections, PostgresLedgerStore ledger, LoadMarks marks,
                      Map<String, String> done, String schema, int degree) throws ConnectorException {
        String table = done.get(TABLE);
        List<List<String>> pending = new ArrayList<>();
        try (ControlConnection control = connections.control("checking the definition of " + table)) {
            for (Build build : recordedBuilds(done)) {
                if (!build.doneIn(control.connection(), table, schema)) {
                    pending.add(List.of(build.statement()));
                }
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the definition of "
                    + table);
        }
        IndexBuilds.run(connections, pending, degree, "building the keys and indexes of " + table);
        ledger.inTransaction(marks.writing(BUILT, java.time.Instant.now().toString()));
    }
}
