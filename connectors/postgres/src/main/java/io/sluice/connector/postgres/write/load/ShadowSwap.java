package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.DerivedName;
import io.sluice.connector.postgres.catalog.IndexDefinition;
import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.connector.postgres.read.TableRows;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadedRowsCheck;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG215;
import static java.util.Objects.requireNonNull;

/**
 * {@code load-mode: replace}: the partitions fill a shadow table made like the table (owner, grants, persistence,
 * storage options; or, for a table the load creates, from the source's columns); after the last partition the shadow
 * gets the table's indexes, foreign keys and primary key, and one short transaction swaps it in under the table's
 * name. From the shadow's creation to the swap the old table is held in SHARE mode when this process alone loads it,
 * so nothing written to it meanwhile is lost; a change to its columns or grants meanwhile refuses the swap.
 */
public final class ShadowSwap implements LoadStep {
    static final String SHADOW = "shadow";
    static final String SWAPPED = "swapped";
    /** The old table's columns when the shadow was made, kept when the shadow's differ (schema-changes). */
    static final String OLD_COLUMNS = "shadow-old-columns";

    private final LoadTable table;
    private final CreateTable create;
    /** The table's indexes at plan time: what the plan says the shadow gets. */
    private final List<IndexDefinition> indexes;
    /** schema-changes: the shadow gets the source's new shape; the live table keeps its own until the swap. */
    private final ShapeChange shape;
    /** This process alone loads the table (not a joined run): it may hold the old table for the run. */
    private volatile boolean alone;
    /**
     * The open transaction holding the old table in SHARE mode from the shadow's creation to the swap, which it
     * runs: writers and DDL wait, so nothing written to the old table meanwhile is lost at the swap.
     */
    private volatile Connection guard;

    /** {@code create}: how the table would be created, for the shadow of a table that does not exist yet. */
    ShadowSwap(LoadTable table, CreateTable create, List<IndexDefinition> indexes, ShapeChange shape) {
        this.table = requireNonNull(table, "table is null");
        this.create = requireNonNull(create, "create is null");
        this.indexes = List.copyOf(requireNonNull(indexes, "indexes is null"));
        this.shape = requireNonNull(shape, "shape is null");
    }

    /**
     * A swap renames tables, and what refers to the old table by OID would stay with it or block its drop: such
     * objects are refused with the reason, all at once, as are tables that are not plain ones and a user who may not
     * drop the old table.
     */
    void check(TargetCatalog target, ResolvedTable resolved) throws SQLException, ConnectorException {
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
        String kept = table.keptName();
        if (table.request().keepPrevious() && target.relationExists(table.schema(), kept)
                && !target.comment(table.schema(), kept).orElse("").startsWith(LoadTable.OWN_TABLE_COMMENT)) {
            reasons.add("keep-previous keeps the old table as " + SqlQuote.identifier(kept) + ", a name a "
                    + "table that is not Sluice's has (rename or drop it)");
        }
        if (!reasons.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG215, "load-mode replace cannot swap "
                    + table.quoted() + ": " + String.join("; ", reasons), "use load-mode truncate (one transaction "
                    + "at degree 1: readers wait for the commit and never see the table empty), or remove what "
                    + "depends on the table");
        }
    }

    private static String temporaryIndexName(String index) {
        return DerivedName.of(index, "_sluice_new");
    }

    @Override
    public void describe(List<String> statements) {
        String shadow = table.shadowQuoted();
        statements.add(table.existing().isPresent()
                ? "CREATE TABLE " + shadow + " (LIKE " + table.quoted() + " INCLUDING ALL EXCLUDING INDEXES)"
                + " -- with its owner, grants, persistence and storage options"
                : create.statement(shadow));
        statements.addAll(shape.statements(shadow));
        for (IndexDefinition index : indexes) {
            statements.addAll(index.buildOn(shadow, temporaryIndexName(index.name())));
        }
        create.primaryKeyStatement(shadow).ifPresent(statements::add);
        CheckRun.describe(table.request().checks(), shadow, "before the swap", statements);
        statements.add("swap, in one transaction: LOCK TABLE " + table.quoted() + " IN ACCESS EXCLUSIVE MODE; "
                + (table.request().keepPrevious() ? "ALTER TABLE " + table.quoted() + " RENAME TO "
                + SqlQuote.identifier(table.keptName()) : "DROP TABLE " + table.quoted()) + "; ALTER TABLE "
                + shadow + " RENAME TO " + SqlQuote.identifier(table.name()) + "; COMMIT");
        SequenceReset.describe(table, statements);
    }

    /** Called when this process claims the table for itself (not a joined run's shared claim). */
    void holdsTableAlone() {
        alone = true;
    }

    /** Ends the hold on the old table, if it is still held (the swap ends it by committing). */
    void releaseGuard() {
        Connection held = guard;
        guard = null;
        PostgresConnections.closeQuietly(held); // rolls the holding transaction back: the lock goes
    }

    /**
     * From the shadow's creation to the swap the old table is held in SHARE mode: readers go on, writers and DDL wait
     * (at most their own lock_timeout), so no row or definition they would add is lost when the shadow replaces it.
     */
    @Override
    public void hold(LoadMarks marks) throws ConnectorException {
        Map<String, String> done = table.read(marks);
        if (table.existing().isEmpty() || !alone || guard != null || done.containsKey(SWAPPED)) {
            return;
        }
        PostgresConnections connections = table.connections();
        Connection c = null;
        try {
            c = connections.open("holding " + table.quoted() + " while it is replaced");
            c.setAutoCommit(false);
            table.locks().lock(c, List.of(table.quoted()), TableLocks.Mode.SHARE, "keep writers and DDL out while "
                    + "the replace loads", ErrorKind.PREFLIGHT);
            guard = c;
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(c);
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "holding " + table.quoted());
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(c);
            throw e;
        }
    }

    @Override
    public void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                      LedgerTransaction tx) throws SQLException, ConnectorException {
        if (done.containsKey(SHADOW)) {
            return;
        }
        String shadow = table.shadowQuoted();
        table.dropOwnLeftover(c, target, table.shadowName());
        if (table.existing().isPresent()) {
            long oid = table.existing().get().oid();
            TargetCatalog.Look look = target.look(oid);
            LoadTable.execute(c, "CREATE " + (look.unlogged() ? "UNLOGGED " : "") + "TABLE " + shadow + " (LIKE "
                    + table.quoted() + " INCLUDING ALL EXCLUDING INDEXES)" + (look.options().isEmpty() ? ""
                    : " WITH (" + String.join(", ", look.options()) + ")")
                    + look.tablespace().map(t -> " TABLESPACE " + SqlQuote.identifier(t)).orElse(""));
            if (!look.owner().equals(new PostgresCatalog(c).currentUser())) {
                LoadTable.execute(c, "ALTER TABLE " + shadow + " OWNER TO " + SqlQuote.identifier(look.owner()));
            }
            for (String grant : target.grants(oid, shadow)) {
                LoadTable.execute(c, grant);
            }
            if (look.replicaIdentity() == 'f' || look.replicaIdentity() == 'n') {
                LoadTable.execute(c, "ALTER TABLE " + shadow + " REPLICA IDENTITY "
                        + (look.replicaIdentity() == 'f' ? "FULL" : "NOTHING"));
            }
            for (String setting : target.tableSettings(oid, shadow)) {
                LoadTable.execute(c, setting); // row-level security, statistics targets, n_distinct: what LIKE leaves out
            }
            if (!shape.isEmpty()) {
                marks.writing(OLD_COLUMNS, String.join("\n", target.columnDefinitions(oid))).apply(tx);
                shape.apply(c, shadow, Map.of(), marks, tx);
            }
        } else {
            LoadTable.execute(c, create.statement(shadow));
        }
        LoadTable.execute(c, "COMMENT ON TABLE " + shadow + " IS " + SqlQuote.literal(LoadTable.OWN_TABLE_COMMENT
                + "shadow of " + table.quoted() + " for run " + marks.runId()));
        marks.writing(SHADOW, shadow).apply(tx);
        marks.writing(LoadMarks.LEFT_BEHIND, "shadow table " + shadow).apply(tx);
    }

    /** After the last partition: the shadow completed (indexes, keys, statistics, sequences), then the swap. */
    @Override
    public void finish(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        finish(marks, done, LoadedRowsCheck.NONE);
    }

    /**
     * Completes the shadow, has {@code check} look at it (a failure leaves the old table live, as it was), then swaps
     * it in; once swapped (a resumed run), {@code check} looks at the table under its own name.
     */
    void finish(LoadMarks marks, Map<String, String> done, LoadedRowsCheck check) throws ConnectorException {
        if (done.containsKey(SWAPPED)) {
            check.check(Optional.empty());
            return;
        }
        PostgresConnections connections = table.connections();
        String shadow = table.shadowQuoted();
        List<IndexDefinition> indexesNow;
        List<TargetCatalog.ForeignKey> foreignKeys;
        List<List<String>> builds = new ArrayList<>();
        try (ControlConnection control = connections.control("reading " + table.quoted())) {
            TargetCatalog target = new TargetCatalog(control.connection());
            Optional<ResolvedTable> now = new PostgresCatalog(control.connection())
                    .resolveTable(QualifiedName.of(table.schema(), table.name()));
            indexesNow = now.isPresent() ? target.indexes(now.get().oid()) : List.of();
            foreignKeys = now.isPresent() ? target.foreignKeys(now.get().oid()) : List.of();
            for (IndexDefinition index : indexesNow) {
                builds.add(IndexRebuild.pending(table, target, index, shadow, temporaryIndexName(index.name())));
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading " + table.quoted());
        }
        IndexBuilds.run(connections, builds, table.request().degree(), "building the indexes of " + shadow);
        table.inTransaction("completing " + shadow, (c, tx) -> {
            TargetCatalog target = new TargetCatalog(c);
            LoadTable.execute(c, "ANALYZE " + shadow); // the planner's statistics are there the moment it is swapped in
            for (TargetCatalog.ForeignKey key : foreignKeys) {
                if (!target.hasConstraint(shadow, key.name())) {
                    LoadTable.execute(c, "ALTER TABLE " + shadow + " ADD CONSTRAINT "
                            + SqlQuote.identifier(key.name()) + " " + key.definition());
                }
            }
            Optional<String> primary = create.primaryKeyStatement(shadow);
            if (primary.isPresent() && !done.containsKey(CreateTable.PRIMARY_KEY)) {
                LoadTable.execute(c, primary.get());
                marks.writing(CreateTable.PRIMARY_KEY, create.primaryKeyColumns()).apply(tx);
            }
            if (SequenceReset.resets(table)) {
                // The shadow's identity sequences, and the serial ones the old table owns (the swap hands them over).
                PostgresCatalog catalog = new PostgresCatalog(c);
                List<TargetCatalog.OwnedSequence> sequences = new ArrayList<>(target.ownedSequences(
                        catalog.resolveTable(table.shadow()).orElseThrow().oid()));
                Optional<ResolvedTable> old = catalog.resolveTable(QualifiedName.of(table.schema(), table.name()));
                if (old.isPresent()) {
                    target.ownedSequences(old.get().oid()).stream().filter(q -> q.dependency() == 'a')
                            .forEach(sequences::add);
                }
                SequenceReset.reset(c, shadow, sequences);
            }
            // checks: on the complete new table, before anyone can see it; a failure rolls this back and swaps nothing
            CheckRun.mark(CheckRun.evaluate(c, table.request().checks(), shadow, "on the new table before the swap",
                    "the old table stays live, as it was"), marks, tx);
        });
        check.check(Optional.of(TableRows.staged(connections, shadow, table.quoted())));
        swap(marks, indexesNow);
    }

    /**
     * The swap, in one short transaction: the old table's lock (waited for at most lock-timeout; a timeout leaves
     * everything as it was), serial sequences handed to the new table, the old table dropped or kept, the shadow
     * renamed to the table's name and its indexes to their original names, the mark that it is done.
     */
    private void swap(LoadMarks marks, List<IndexDefinition> indexesNow) throws ConnectorException {
        String shadow = table.shadowQuoted();
        String quoted = table.quoted();
        String schema = table.schema();
        inGuardOrTransaction("swapping " + shadow + " in for " + quoted, (c, tx) -> {
            Map<String, String> now = marks.reading().apply(tx);
            if (now.containsKey(SWAPPED)) {
                return;
            }
            PostgresCatalog catalog = new PostgresCatalog(c);
            TargetCatalog target = new TargetCatalog(c);
            Optional<ResolvedTable> old = catalog.resolveTable(QualifiedName.of(schema, table.name()));
            Optional<String> comment = Optional.empty();
            List<String> carried = List.of();
            Map<String, String> identityNames = Map.of();
            if (old.isPresent()) {
                table.locks().lock(c, List.of(quoted), TableLocks.Mode.ACCESS_EXCLUSIVE, "swap in the new table",
                        ErrorKind.FAILED);
                refuseDrift(target, old.get().oid(), catalog.resolveTable(table.shadow()).orElseThrow().oid(),
                        Optional.ofNullable(now.get(OLD_COLUMNS)));
                comment = target.look(old.get().oid()).comment();
                carried = target.indexSettings(old.get().oid(), quoted, schema);
                identityNames = table.request().keepPrevious() ? Map.of()
                        : identitySequenceNames(c, target, old.get().oid());
                Set<String> shadowColumns = new LinkedHashSet<>();
                catalog.columns(catalog.resolveTable(table.shadow()).orElseThrow().oid())
                        .forEach(col -> shadowColumns.add(col.name()));
                for (TargetCatalog.OwnedSequence sequence : target.ownedSequences(old.get().oid())) {
                    if (sequence.dependency() == 'a' && shadowColumns.contains(sequence.column())) {
                        LoadTable.execute(c, "ALTER SEQUENCE " + sequence.sequence() + " OWNED BY " + shadow + "."
                                + SqlQuote.identifier(sequence.column()));
                    }
                }
                if (table.request().keepPrevious()) {
                    table.dropOwnLeftover(c, target, table.keptName());
                    LoadTable.execute(c, "ALTER TABLE " + quoted + " RENAME TO "
                            + SqlQuote.identifier(table.keptName()));
                    for (IndexDefinition index : indexesNow) {
                        LoadTable.execute(c, "ALTER INDEX " + table.qualified(index.name()) + " RENAME TO "
                                + SqlQuote.identifier(DerivedName.of(index.name(), "_old")));
                    }
                    LoadTable.execute(c, "COMMENT ON TABLE " + table.qualified(table.keptName()) + " IS "
                            + SqlQuote.literal(LoadTable.OWN_TABLE_COMMENT + "the previous " + quoted
                            + ", kept by run " + marks.runId()));
                } else {
                    LoadTable.execute(c, "DROP TABLE " + quoted);
                }
            }
            LoadTable.execute(c, "ALTER TABLE " + shadow + " RENAME TO " + SqlQuote.identifier(table.name()));
            for (IndexDefinition index : indexesNow) {
                LoadTable.execute(c, "ALTER INDEX " + table.qualified(temporaryIndexName(index.name()))
                        + " RENAME TO " + SqlQuote.identifier(index.name()));
            }
            LoadTable.execute(c, "COMMENT ON TABLE " + quoted + " IS " + comment.map(SqlQuote::literal)
                    .orElse("NULL"));
            for (String setting : carried) {
                LoadTable.execute(c, setting); // index and constraint comments, replica identity index, CLUSTER ON
            }
            // The new table's identity sequences were named after the shadow: they take the old ones' names.
            Map<String, String> oldNames = identityNames;
            for (TargetCatalog.OwnedSequence sequence : target.ownedSequences(catalog.resolveTable(
                    QualifiedName.of(schema, table.name())).orElseThrow().oid())) {
                String name = oldNames.get(sequence.column());
                if (sequence.dependency() == 'i' && name != null) {
                    LoadTable.execute(c, "ALTER SEQUENCE " + sequence.sequence() + " RENAME TO "
                            + SqlQuote.identifier(name));
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
    private void refuseDrift(TargetCatalog target, long oldOid, long shadowOid, Optional<String> oldWhenMade)
            throws SQLException, ConnectorException {
        List<String> differences = new ArrayList<>();
        List<String> oldColumns = target.columnDefinitions(oldOid);
        // A shadow given a new shape (schema-changes) is compared by the old table's columns as they were then.
        List<String> newColumns = oldWhenMade.map(o -> List.of(o.split("\n", -1)))
                .orElse(target.columnDefinitions(shadowOid));
        if (!oldColumns.equals(newColumns)) {
            differences.add("columns now (" + String.join(", ", oldColumns) + ") against (" + String.join(", ",
                    newColumns) + ") when the load began");
        }
        Set<String> oldGrants = new TreeSet<>(target.grants(oldOid, "t"));
        Set<String> newGrants = new TreeSet<>(target.grants(shadowOid, "t"));
        if (!oldGrants.equals(newGrants)) {
            differences.add("grants now [" + String.join("; ", oldGrants) + "] against [" + String.join("; ",
                    newGrants) + "] when the load began");
        }
        if (!differences.isEmpty()) {
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG222, table.quoted() + " changed while the "
                    + "replace loaded its new copy, and the swap would lose the change: " + String.join("; ",
                    differences) + "; the old table stays as it is", "start a fresh run (without --resume): its new "
                    + "copy takes the table's definition as it is then");
        }
    }

    /** The names (unqualified) of the table's identity sequences, by column. */
    private static Map<String, String> identitySequenceNames(Connection c, TargetCatalog target, long tableOid)
            throws SQLException {
        Map<String, String> names = new HashMap<>();
        for (TargetCatalog.OwnedSequence sequence : target.ownedSequences(tableOid)) {
            if (sequence.dependency() == 'i') {
                try (PreparedStatement p = c.prepareStatement("SELECT relname FROM pg_class WHERE oid = "
                        + "?::regclass")) {
                    p.setString(1, sequence.sequence());
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        names.put(sequence.column(), rs.getString(1));
                    }
                }
            }
        }
        return names;
    }

    /**
     * Runs {@code change} in the transaction that holds the old table (the guard), so no writer can slip in between
     * the hold and the swap; without one, in a transaction of its own.
     */
    private void inGuardOrTransaction(String what, LoadTable.Change change) throws ConnectorException {
        Connection c = guard;
        if (c == null) {
            table.inTransaction(what, change);
            return;
        }
        try {
            change.run(c, table.ledger().rowsOn(c));
            c.commit();
        } catch (SQLException e) {
            throw table.connections().errors().translate(e, PostgresErrors.Phase.COPY, what);
        } finally {
            releaseGuard();
        }
    }
}
