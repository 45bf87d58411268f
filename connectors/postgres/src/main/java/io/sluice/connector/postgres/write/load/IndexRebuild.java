package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.IndexDefinition;
import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * {@code indexes: rebuild}: the indexes a load may do without are dropped before the first partition, their
 * definitions marked in the same transaction, and built again after the last (or after a failure, on what the table
 * holds then); indexes an earlier run dropped and never built again are built before anything else touches the table.
 */
public final class IndexRebuild implements LoadStep {
    static final String INDEXES_DROPPED = "indexes.dropped";
    static final String INDEXES_BUILT = "indexes.built";

    private final LoadTable table;
    private final List<String> mergeKey;
    private final List<IndexDefinition> dropped;

    private IndexRebuild(LoadTable table, List<String> mergeKey, List<IndexDefinition> dropped) {
        this.table = requireNonNull(table, "table is null");
        this.mergeKey = List.copyOf(requireNonNull(mergeKey, "mergeKey is null"));
        this.dropped = List.copyOf(requireNonNull(dropped, "dropped is null"));
    }

    /**
     * Plans which of the table's {@code indexes} the load drops; the unique indexes it must keep are said in
     * {@code notes}; a user who does not own the table is refused (only the owner drops indexes).
     */
    static IndexRebuild plan(LoadTable table, TargetCatalog target, PostgresCatalog catalog,
                             List<IndexDefinition> indexes, List<String> mergeKey, List<String> notes)
            throws SQLException, ConnectorException {
        LoadRequest request = table.request();
        List<IndexDefinition> dropped = request.indexes() == LoadRequest.Indexes.REBUILD
                && request.mode() != LoadMode.REPLACE ? droppable(request.mode(), indexes, mergeKey) : List.of();
        if (request.indexes() == LoadRequest.Indexes.REBUILD && request.mode() != LoadMode.TRUNCATE) {
            for (IndexDefinition index : indexes) {
                if (index.unique() && !dropped.contains(index) && index.constraint().isEmpty()) {
                    notes.add("indexes: rebuild keeps unique index " + index.name() + ": the load relies on it "
                            + "to refuse duplicates (only a truncate, which starts empty, rebuilds unique indexes)");
                }
            }
        }
        Optional<ResolvedTable> existing = table.existing();
        if (existing.isPresent() && !dropped.isEmpty() && !target.look(existing.get().oid()).ownedByUser()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG203, "indexes: rebuild drops indexes of "
                    + table.quoted() + ", which only its owner may do, and user " + catalog.currentUser()
                    + " is not its owner", "run as the table's owner, or use indexes: keep");
        }
        return new IndexRebuild(table, mergeKey, dropped);
    }

    /**
     * The indexes a rebuild drops: every index that backs no constraint and is not unique, and, on a truncate load
     * (the table starts empty), unique indexes, primary keys and unique constraints no foreign key depends on.
     * Exclusion constraints stay, and so does every unique index of an append or a merge, which keep rows out.
     */
    private static List<IndexDefinition> droppable(LoadMode mode, List<IndexDefinition> indexes,
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
            if (mode != LoadMode.TRUNCATE && index.unique()) {
                continue; // an append or a merge relies on it: without it duplicates would commit
            }
            boolean constraint = index.constraint().isPresent();
            if (!constraint || mode == LoadMode.TRUNCATE && index.constraint().get().type() != 'x') {
                dropped.add(index);
            }
        }
        return dropped;
    }

    @Override
    public void describe(List<String> statements) {
        for (IndexDefinition index : dropped) {
            statements.add(index.dropStatement(table.quoted(), table.schema()));
        }
        for (IndexDefinition index : dropped) {
            statements.addAll(index.buildOn(table.quoted(), index.name()));
        }
    }

    @Override
    public boolean begins() {
        return table.request().indexes() == LoadRequest.Indexes.REBUILD && table.existing().isPresent();
    }

    @Override
    public void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                      LedgerTransaction tx) throws SQLException, ConnectorException {
        if (table.request().indexes() != LoadRequest.Indexes.REBUILD || table.existing().isEmpty()
                || done.containsKey(INDEXES_DROPPED)) {
            return;
        }
        table.locks().lock(c, List.of(table.quoted()), TableLocks.Mode.ACCESS_EXCLUSIVE, "drop its indexes for the "
                + "load", ErrorKind.PREFLIGHT);
        // The indexes as they are now, under the lock: since the plan an earlier run's lost indexes may have been
        // built again (restoreEarlierRuns), a primary key among them, whose index only its constraint drops.
        List<IndexDefinition> now = droppable(table.request().mode(), target.indexes(table.existing().get().oid()),
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
            LoadTable.execute(c, index.dropStatement(table.quoted(), table.schema()));
        }
        marks.writing(INDEXES_DROPPED, String.valueOf(now.size())).apply(tx);
        marks.writing(LoadMarks.LEFT_BEHIND, now.size() + " index(es) of " + table.quoted() + " to build again")
                .apply(tx);
    }

    @Override
    public void finish(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        buildDropped(marks, done, Instant.now().toString());
    }

    /**
     * After a failed stream: the indexes this run dropped are built again on what the table holds (the old rows, after
     * a one-transaction load rolled back), so a failed run leaves them as they were. A resume then loads with them.
     */
    @Override
    public void abort(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        buildDropped(marks, done, "restored after the failure, " + Instant.now());
    }

    private void buildDropped(LoadMarks marks, Map<String, String> done, String mark) throws ConnectorException {
        if (!done.containsKey(INDEXES_DROPPED) || done.containsKey(INDEXES_BUILT)) {
            return;
        }
        build(table, droppedIn(done), "building the indexes of " + table.quoted());
        table.inTransaction("recording the indexes of " + table.quoted(), (c, tx) -> {
            marks.writing(INDEXES_BUILT, mark).apply(tx);
            marks.writing(LoadMarks.LEFT_BEHIND, "").apply(tx);
        });
    }

    /**
     * The indexes an earlier run of the spec dropped and never built again (it was killed, or its restore failed) and
     * that the table still lacks: built now, before this run touches the table, so no run loses an index for good.
     */
    static void restoreEarlierRuns(LoadTable table, Map<String, Map<String, String>> unfinishedEarlier)
            throws ConnectorException {
        Map<String, IndexDefinition> lost = new LinkedHashMap<>();
        for (Map<String, String> earlier : unfinishedEarlier.values()) {
            if (earlier.containsKey(INDEXES_DROPPED) && !earlier.containsKey(INDEXES_BUILT)) {
                for (IndexDefinition index : droppedIn(earlier)) {
                    lost.putIfAbsent(index.name(), index);
                }
            }
        }
        if (lost.isEmpty() || table.existing().isEmpty()) {
            return;
        }
        build(table, List.copyOf(lost.values()), "building again the indexes of " + table.quoted()
                + " that an unfinished run dropped");
    }

    /** Builds what is left of building each of {@code indexes} on the table. */
    private static void build(LoadTable table, List<IndexDefinition> indexes, String what) throws ConnectorException {
        PostgresConnections connections = table.connections();
        List<List<String>> builds = new ArrayList<>();
        try (ControlConnection control = connections.control("checking the indexes of " + table.quoted())) {
            TargetCatalog target = new TargetCatalog(control.connection());
            for (IndexDefinition index : indexes) {
                builds.add(pending(table, target, index, table.quoted(), index.name()));
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the indexes of "
                    + table.quoted());
        }
        IndexBuilds.run(connections, builds, table.request().degree(), what);
    }

    /**
     * What is left of building {@code index} as {@code name} on {@code on}: nothing when it exists with its
     * constraint, the constraint alone when a crash came between the two, else everything.
     */
    static List<String> pending(LoadTable table, TargetCatalog target, IndexDefinition index, String on, String name)
            throws SQLException {
        List<String> all = index.buildOn(on, name);
        if (!target.relationExists(table.schema(), name)) {
            return all;
        }
        if (index.constraint().isEmpty() || index.constraint().get().type() == 'x' || target.hasConstraint(on, name)) {
            return List.of();
        }
        return all.subList(1, all.size());
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
}
