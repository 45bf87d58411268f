package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.IndexDefinition;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.copy.AfterCopy;
import io.sluice.connector.postgres.copy.BeforeCopy;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG216;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG220;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG221;
import static java.util.Objects.requireNonNull;

/**
 * {@code load-mode: merge}: the key rows are matched on (checked at plan time: a unique index must hold exactly it),
 * each partition staged and applied in its own transaction ({@link MergeStatements}), and with {@code delete-missing}
 * the run's keys table, from which the rows the source no longer has are deleted after the last partition, once the
 * keys are proven complete.
 */
public final class MergeStaging implements LoadStep {
    static final String KEYS = "merge.keys";
    static final String DELETED = "merge.deleted";

    private final LoadTable table;
    private final List<String> key;
    private final List<String> primaryKey;
    private final MergeStatements statements;
    /** The target held no row when this process began the merge: its partitions try a plain INSERT first. */
    private volatile boolean intoEmpty;

    private MergeStaging(LoadTable table, List<String> key, List<String> primaryKey, List<String> nullableKey,
                         List<String> unfed) {
        this.table = requireNonNull(table, "table is null");
        this.key = List.copyOf(requireNonNull(key, "key is null"));
        this.primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        this.statements = new MergeStatements(table.quoted(), table.keysQuoted(), key, nullableKey, table.request(),
                table::locks, table.request().rejectsTable().map(t -> RejectsStep.quotedName(t, table.schema())),
                unfed);
    }

    /**
     * Plans the merge of {@code table} ({@code indexes}: the existing table's; {@code primaryKey}: the spec's, for a
     * table the load creates), refusing a key no unique index holds and a delete-missing whose key can be NULL.
     */
    static MergeStaging plan(LoadTable table, List<IndexDefinition> indexes, List<String> primaryKey,
                             List<String> unfed) throws ConnectorException {
        List<String> key = key(table, indexes, primaryKey);
        List<String> nullable = nullableKey(table.columns(), key, table.existing().isEmpty() ? primaryKey : List.of());
        if (table.request().deleteMissing() && !nullable.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG221, "delete-missing on " + table.quoted()
                    + " matches rows by merge key (" + String.join(", ", key) + "), and column(s) "
                    + String.join(", ", nullable) + " can hold NULL, which matches no key: such a row would be "
                    + "inserted and then deleted on every run", nullable.stream().map(k -> "ALTER TABLE "
                    + table.quoted() + " ALTER COLUMN " + SqlQuote.identifier(k) + " SET NOT NULL")
                    .collect(Collectors.joining("; ")) + ", or merge on columns that cannot be NULL");
        }
        return new MergeStaging(table, key, primaryKey, nullable, unfed);
    }

    /** The merge key: the spec's, else the primary key; the target needs a plain unique index on exactly it. */
    private static List<String> key(LoadTable table, List<IndexDefinition> indexes, List<String> primaryKey)
            throws ConnectorException {
        boolean exists = table.existing().isPresent();
        List<String> key = table.request().mergeKey();
        if (key.isEmpty()) {
            key = exists ? indexes.stream()
                    .filter(i -> i.constraint().map(c -> c.type() == 'p').orElse(false)).findFirst()
                    .map(IndexDefinition::columns).orElse(List.of()) : primaryKey;
        }
        if (key.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG216, "load-mode merge needs a key, and "
                    + table.quoted() + (exists ? " has no primary key" : " is created without one"),
                    "set merge-key: [columns] on the stream" + (exists ? "" : ", or primary-key on the target"));
        }
        Set<String> names = table.columns().stream().map(Column::name).collect(Collectors.toSet());
        for (String column : key) {
            table.requireColumn(names, column, "merge-key");
        }
        if (exists) {
            Set<String> wanted = new HashSet<>(key);
            boolean unique = indexes.stream().anyMatch(i -> i.plainUnique() && new HashSet<>(i.columns())
                    .equals(wanted) && i.columns().size() == wanted.size());
            if (!unique) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG216, "merge-key (" + String.join(", ", key)
                        + ") has no unique index on exactly those columns on " + table.quoted() + ": INSERT ... ON "
                        + "CONFLICT needs one to find a row's match", "CREATE UNIQUE INDEX ON " + table.quoted()
                        + " (" + key.stream().map(SqlQuote::identifier).collect(Collectors.joining(", "))
                        + "), or name the columns of an existing unique index");
            }
        }
        return List.copyOf(key);
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

    List<String> key() {
        return key;
    }

    /** For a merge into a table it creates: the key's constraint, at once, since ON CONFLICT needs it. */
    String keyConstraint() {
        boolean isPrimary = !primaryKey.isEmpty() && new HashSet<>(primaryKey).equals(new HashSet<>(key));
        return "ALTER TABLE " + table.quoted() + " ADD " + (isPrimary ? "PRIMARY KEY" : "UNIQUE") + " ("
                + statements.keyList("") + ")";
    }

    @Override
    public void describe(List<String> plan) {
        boolean deleteMissing = table.request().deleteMissing();
        if (deleteMissing) {
            plan.add("CREATE TABLE " + table.keysQuoted() + " AS SELECT " + statements.keyList("") + " FROM "
                    + table.quoted() + " WITH NO DATA");
        }
        List<Column> copied = table.columns().stream().filter(c -> !c.isGenerated()).toList();
        plan.add("per partition: CREATE TEMP TABLE IF NOT EXISTS " + MergeStatements.STAGING
                + " ...; COPY into it; " + statements.applyStatement(copied) + (deleteMissing
                ? "; INSERT INTO " + table.keysQuoted() + " SELECT " + statements.keyList("") + " FROM "
                + MergeStatements.STAGING : ""));
        if (deleteMissing) {
            plan.add(statements.deleteMissingStatement());
        }
    }

    @Override
    public void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                      LedgerTransaction tx) throws SQLException, ConnectorException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM " + table.quoted() + ")")) {
            rs.next();
            intoEmpty = rs.getBoolean(1);
        }
        if (table.request().deleteMissing() && !done.containsKey(KEYS)) {
            table.dropOwnLeftover(c, target, table.keysName());
            // Logged: the keys commit with each partition's DONE row and must survive whatever the ledger survives.
            LoadTable.execute(c, "CREATE TABLE " + table.keysQuoted() + " AS SELECT " + statements.keyList("")
                    + " FROM " + table.quoted() + " WITH NO DATA");
            LoadTable.execute(c, "COMMENT ON TABLE " + table.keysQuoted() + " IS " + SqlQuote.literal(
                    LoadTable.OWN_TABLE_COMMENT + "keys merged into " + table.quoted() + " by run " + marks.runId()));
            marks.writing(KEYS, table.keysQuoted()).apply(tx);
            marks.writing(LoadMarks.LEFT_BEHIND, "keys table " + table.keysQuoted()).apply(tx);
        }
    }

    /** The merge's work in a partition's transaction before its COPY ({@link MergeStatements#before}). */
    BeforeCopy before(List<Column> copied) {
        return statements.before(copied);
    }

    /** The merge's work at a partition's commit ({@link MergeStatements#after}). */
    AfterCopy after(List<Column> copied) throws ConnectorException {
        return statements.after(copied, intoEmpty);
    }

    @Override
    public void finish(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        if (!table.request().deleteMissing() || done.containsKey(DELETED)) {
            return;
        }
        table.inTransaction("deleting the rows the source did not have from " + table.quoted(), (c, tx) -> {
            Map<String, String> now = marks.reading().apply(tx);
            if (now.containsKey(DELETED)) {
                return; // another process of the run got here first
            }
            requireCompleteKeys(c, marks.rowsDone().apply(tx));
            long deleted;
            try (Statement s = c.createStatement()) {
                deleted = s.executeUpdate(statements.deleteMissingStatement());
                s.execute("DROP TABLE " + table.keysQuoted());
            }
            marks.writing(DELETED, String.valueOf(deleted)).apply(tx);
            marks.writing(LoadMarks.DELETED_ROWS, String.valueOf(deleted)).apply(tx);
            marks.writing(LoadMarks.LEFT_BEHIND, "").apply(tx);
        });
    }

    /**
     * The proof a delete-missing needs before it deletes: its keys table is there and logged (an UNLOGGED one, as
     * older releases made, is emptied by a server crash), it holds one key per row the done partitions wrote
     * ({@code rowsDone}, the ledger's count), and it is not empty while the target has rows (an empty source would
     * empty the target: a truncate says that on purpose).
     */
    private void requireCompleteKeys(Connection c, OptionalLong rowsDone) throws SQLException, ConnectorException {
        String fresh = "run the spec again without --resume: a fresh run merges every partition and collects the "
                + "keys anew";
        String persistence;
        try (PreparedStatement p = c.prepareStatement("SELECT c.relpersistence FROM pg_class c JOIN "
                + "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            p.setString(1, table.schema());
            p.setString(2, table.keysName());
            try (ResultSet rs = p.executeQuery()) {
                persistence = rs.next() ? rs.getString(1) : "";
            }
        }
        String keysTable = table.keysQuoted();
        if (persistence.isEmpty()) {
            throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the keys table "
                    + keysTable + " of this run is gone, so the rows the source has cannot be told from the rest; "
                    + "nothing was deleted", fresh);
        }
        if (!persistence.equals("p")) {
            throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the keys table "
                    + keysTable + " is UNLOGGED (made by an older release), and a server crash empties such a "
                    + "table, so its keys cannot be proven complete; nothing was deleted", fresh);
        }
        long keys = count(c, keysTable);
        if (rowsDone.isPresent() && keys != rowsDone.getAsLong()) {
            throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the keys table "
                    + keysTable + " holds " + keys + " key(s), but the run's done partitions merged "
                    + rowsDone.getAsLong() + " row(s) (the ledger's count), so its keys are not complete; nothing was "
                    + "deleted", fresh);
        }
        if (keys == 0) {
            long rows = count(c, table.quoted());
            if (rows > 0) {
                throw new ConnectorException(ErrorKind.FAILED, PG220, "delete-missing refused: the source had no "
                        + "rows, so the DELETE would remove all " + rows + " row(s) of " + table.quoted() + "; nothing "
                        + "was deleted", "if the source is empty on purpose and the target must be emptied, use "
                        + "load-mode truncate; otherwise look at why the source is empty");
            }
        }
    }

    private static long count(Connection c, String quotedTable) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM "
                + quotedTable)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
