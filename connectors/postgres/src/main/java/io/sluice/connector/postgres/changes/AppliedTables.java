package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.catalog.TypeLoss;
import io.sluice.connector.postgres.catalog.TypeWidth;
import io.sluice.connector.postgres.catalog.UnknownEarlierRows;
import io.sluice.connector.postgres.changes.PostgresChangeApplier.Route;
import io.sluice.spi.changes.ChangeRelation;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The target tables a feed's changes go to, as the apply knows them: each route, its table described (columns, types,
 * key) and how each description the source sends of it (a relation) maps onto it. Columns the source added are added,
 * and types it widened are widened, in the batch's transaction; a batch rolled back takes them back.
 */
final class AppliedTables {
    /** Writes out what a batch staged so far, before a table changes shape under it. */
    @FunctionalInterface
    interface Flush {
        void pending(Map<String, TableChanges> pending) throws SQLException;
    }

    private final Connection connection;
    private final Flush flush;
    private final Map<String, Route> routes = new HashMap<>();
    /** The routes as of the last commit: a batch rolled back takes back the columns it added. */
    private final Map<String, Route> committedRoutes = new HashMap<>();
    private final Map<String, TableChanges.Table> tables = new HashMap<>();
    /** By the decoder's relation object (one per description of a table): hashing its lists for every change cost. */
    private final Map<ChangeRelation, TableChanges.Mapping> mappings = new java.util.IdentityHashMap<>();
    /**
     * By route, the target columns added when the applier opened (the source added them since the copy), with the
     * value the source's rows from before hold: a change written before the column (a relation without it) means that.
     */
    private final Map<String, Map<String, java.util.Optional<String>>> addedSince = new HashMap<>();
    /** A batch not committed yet added or widened target columns: its rollback takes them back. */
    private boolean reshaped;

    /** Describes each route's table, adding the carried columns it lacks, in {@code connection}'s transaction. */
    AppliedTables(Connection connection, List<Route> routes, Flush flush) throws SQLException, ConnectorException {
        this.connection = requireNonNull(connection, "connection is null");
        this.flush = requireNonNull(flush, "flush is null");
        for (Route route : routes) {
            this.routes.put(route.source(), route);
            tables.put(route.source(), describeAdding(route));
        }
        committedRoutes.putAll(this.routes);
    }

    /** Whether a stream of the run copied source table {@code source} (the publication may hold others). */
    boolean carries(String source) {
        return routes.containsKey(source);
    }

    TableChanges.Table table(String source) {
        return tables.get(source);
    }

    Collection<Route> routes() {
        return routes.values();
    }

    /** The batch that changed shapes committed: they stay. */
    void committed() {
        committedRoutes.putAll(routes);
        reshaped = false;
    }

    /** The batch rolled back, and with it the columns it added or widened: the tables are described again. */
    void rolledBack() {
        if (reshaped) {
            // Columns this batch added or widened were rolled back with it: describe the tables as they are again.
            reshaped = false;
            routes.clear();
            routes.putAll(committedRoutes);
            mappings.clear();
            try {
                for (Route route : routes.values()) {
                    tables.put(route.source(), describe(route));
                }
                connection.rollback();
            } catch (SQLException | ConnectorException ignored) {
                // the next batch fails on its own
            }
        }
    }

    /**
     * The route's table, after adding the carried columns it lacks (schema-changes add-columns or widen: a run that
     * only applies changes ran no load step that adds them), so a column added at the source is there, with the value
     * of the rows from before, whether or not a change of the table comes.
     */
    private TableChanges.Table describeAdding(Route route) throws SQLException, ConnectorException {
        TableChanges.Table table = describe(route);
        if (!route.schemaChanges().altersTarget()) {
            return table;
        }
        List<String> statements = new ArrayList<>();
        Map<String, java.util.Optional<String>> added = new HashMap<>();
        List<Column> unknown = new ArrayList<>();
        for (Map.Entry<String, String> carried : route.columns().entrySet()) {
            Column column = route.sourceColumns().get(carried.getKey());
            if (column != null && !table.columns().contains(carried.getValue())) {
                statements.addAll(route.adding(carried.getValue(), column.typeName(), column.earlierRows().oneValue()));
                added.put(carried.getValue(), column.earlierRows().oneValue());
                if (column.earlierRows().perRow()) {
                    unknown.add(column);
                }
            }
        }
        if (!unknown.isEmpty() && new TargetCatalog(connection).hasRows(route.target())) {
            throw unknownEarlierRows(route, unknown);
        }
        addedSince.put(route.source(), added);
        if (statements.isEmpty()) {
            return table;
        }
        try (java.sql.Statement s = connection.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
        return describe(route);
    }

    /** The target table's columns (those the route carries), their types and its primary key. */
    private TableChanges.Table describe(Route route) throws SQLException, ConnectorException {
        List<String> columns = new ArrayList<>();
        List<String> types = new ArrayList<>();
        List<String> castTypes = new ArrayList<>();
        List<Integer> key = new ArrayList<>();
        // The cast type leaves the length out, so the column's own (assignment) rules apply: a value too long for
        // varchar(n) fails as COPY fails it, where an explicit ::varchar(n) would cut it. bpchar and "bit" are the
        // names without a length; character and bit would mean a length of 1.
        try (PreparedStatement p = connection.prepareStatement("SELECT a.attname, format_type(a.atttypid, "
                + "a.atttypmod), EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = a.attrelid AND "
                + "x.indisprimary AND a.attnum = ANY (x.indkey)), CASE WHEN a.atttypid IN (1042, 1014) THEN "
                + "replace(format_type(a.atttypid, NULL), 'character', 'bpchar') WHEN a.atttypid IN (1560, 1561) "
                + "THEN replace(format_type(a.atttypid, NULL), 'bit', '\"bit\"') ELSE format_type(a.atttypid, NULL) "
                + "END FROM pg_attribute a WHERE a.attrelid = "
                + "to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' "
                + "ORDER BY a.attnum")) {
            p.setString(1, route.target());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    if (!route.columns().containsValue(rs.getString(1))) {
                        continue;
                    }
                    if (rs.getBoolean(3)) {
                        key.add(columns.size());
                    }
                    columns.add(rs.getString(1));
                    types.add(rs.getString(2));
                    castTypes.add(rs.getString(4));
                }
            }
        }
        if (columns.isEmpty()) {
            // A table the feed's publication carried without the feed knowing it was new (FOR ALL TABLES).
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG607, "the changes of " + route.source()
                    + " cannot be applied: " + route.target() + " does not exist, so the table was never copied "
                    + "(a pattern picked it up after the feed started, and the feed's publication publishes all "
                    + "tables, so the feed could not tell it was new)", "leave it out of the stream's pattern, or "
                    + "run with --restart-changes to copy every table again from a new slot; a publication of "
                    + "the listed tables (Sluice's own when changes: names none) lets a run copy a new table into "
                    + "the feed by itself");
        }
        if (key.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG607, "the changes of " + route.source()
                    + " cannot be applied to " + route.target() + ": it has no primary key over columns the stream "
                    + "carries, so no change finds its row", "give " + route.target() + " the source table's "
                    + "primary key (create: if-missing with definition: full does), then run again");
        }
        return new TableChanges.Table(route.target(), columns, types, castTypes, key);
    }

    TableChanges.Mapping mapping(ChangeRelation relation, Map<String, TableChanges> pending)
            throws ConnectorException, SQLException {
        TableChanges.Mapping known = mappings.get(relation);
        if (known != null) {
            return known;
        }
        Route route = routes.get(relation.name());
        List<Integer> added = new ArrayList<>();
        TableChanges.Table described = tables.get(relation.name());
        for (int i = 0; i < relation.columns().size(); i++) {
            String column = relation.columns().get(i);
            String to = route.columns().get(column);
            // New since the stream was planned, or carried and not in the target yet (a run that only applies
            // changes ran no load step that adds it).
            if (!route.sourceColumns().containsKey(column) || (to != null && !described.columns().contains(to))) {
                added.add(i);
            }
        }
        if (!added.isEmpty() && route.schemaChanges() != SchemaChanges.IGNORE_NEW) {
            route = addColumns(route, relation, added, pending);
        }
        if (route.schemaChanges() == SchemaChanges.WIDEN) {
            widen(route, relation, pending);
        }
        TableChanges.Table table = tables.get(relation.name());
        int[] targetOf = new int[relation.columns().size()];
        Map<String, Integer> sourceIndex = new HashMap<>();
        for (int i = 0; i < targetOf.length; i++) {
            String to = route.columns().get(relation.columns().get(i));
            targetOf[i] = to == null ? -1 : table.columns().indexOf(to);
            sourceIndex.put(to == null ? "" : to, i);
        }
        boolean[] unfed = new boolean[table.columns().size()];
        java.util.Arrays.fill(unfed, true);
        List<String> lossy = new ArrayList<>();
        List<String> widenings = new ArrayList<>();
        for (int i = 0; i < targetOf.length; i++) {
            int to = targetOf[i];
            if (to >= 0) {
                unfed[to] = false;
                String from = relation.types().get(i);
                java.util.Optional<String> loss = TypeLoss.of(from, table.types().get(to));
                if (loss.isPresent()) {
                    lossy.add("source column " + relation.columns().get(i) + " is " + from + " now and target column "
                            + table.columns().get(to) + " is " + table.types().get(to) + ": " + loss.get());
                    widenings.add("ALTER TABLE " + table.quoted() + " ALTER COLUMN " + SqlQuote.identifier(
                            table.columns().get(to)) + " TYPE " + from);
                }
            }
        }
        if (!lossy.isEmpty()) {
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG229, "the changes of " + relation.name()
                    + " would change values in " + table.quoted() + " without an error: " + String.join("; ", lossy)
                    + "; nothing of this batch was applied", "widen the target column (" + String.join("; ",
                    widenings) + "), then run again: the changes apply from where they stopped");
        }
        if (route.schemaChanges() == SchemaChanges.FAIL) {
            List<String> dropped = new ArrayList<>();
            for (Map.Entry<String, String> carried : route.columns().entrySet()) {
                int to = table.columns().indexOf(carried.getValue());
                if (to >= 0 && unfed[to] && !relation.columns().contains(carried.getKey())) {
                    dropped.add(carried.getKey());
                }
            }
            if (!dropped.isEmpty()) {
                java.util.Collections.sort(dropped);
                throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG230, relation.name() + " no longer has "
                        + "column(s) " + String.join(", ", dropped) + " (dropped at the source), and schema-changes "
                        + "is fail: the changes would write NULL into " + table.quoted() + "; nothing of this batch "
                        + "was applied", "drop the column(s) from " + table.quoted() + " too, or set schema-changes: "
                        + "add-columns on the stream to write NULL there from now on; then run again");
            }
        }
        int[] keySource = new int[table.keyColumns().size()];
        for (int k = 0; k < keySource.length; k++) {
            Integer from = sourceIndex.get(table.columns().get(table.keyColumns().get(k)));
            if (from == null || !relation.key().get(from)) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG607, "the primary key of "
                        + table.quoted() + " is not the key the source sends for " + relation.name() + " (its "
                        + "columns " + keyNames(relation) + "): a change could not find its row", "give both "
                        + "tables the same primary key, or set the source table's REPLICA IDENTITY to an index over "
                        + "the target's key columns");
            }
            keySource[k] = from;
        }
        List<String> stageTypes = new ArrayList<>();
        for (int c = 0; c < table.columns().size(); c++) {
            Integer from = sourceIndex.get(table.columns().get(c));
            boolean binary = relation.format() == ChangeRelation.ValueFormat.POSTGRESQL_BINARY;
            stageTypes.add(binary && from != null && !unfed[c] ? relation.types().get(from) : "text");
        }
        byte[][] unfedValues = new byte[table.columns().size()][];
        Map<String, java.util.Optional<String>> since = addedSince.getOrDefault(relation.name(), Map.of());
        for (int c = 0; c < unfed.length; c++) {
            java.util.Optional<String> before = unfed[c] ? since.getOrDefault(table.columns().get(c),
                    java.util.Optional.empty()) : java.util.Optional.empty();
            unfedValues[c] = before.map(v -> v.getBytes(java.nio.charset.StandardCharsets.UTF_8)).orElse(null);
        }
        TableChanges.Mapping mapping = new TableChanges.Mapping(relation, targetOf, keySource, unfed, stageTypes,
                unfedValues);
        mappings.put(relation, mapping);
        return mapping;
    }

    /**
     * Columns added at the source: added to the target in the batch's transaction (schema-changes: add-columns or
     * widen), or the batch fails saying how to go on (fail, the default).
     */
    private Route addColumns(Route route, ChangeRelation relation, List<Integer> added,
                             Map<String, TableChanges> pending) throws ConnectorException, SQLException {
        List<String> statements = new ArrayList<>();
        List<Column> unknown = new ArrayList<>();
        for (int i : added) {
            String column = relation.columns().get(i);
            // Described by the source's catalog when the description came: a column added while this run follows.
            Column described = relation.described().get(column);
            statements.addAll(route.adding(route.columns().getOrDefault(column, column), relation.types().get(i),
                    described == null ? java.util.Optional.empty() : described.earlierRows().oneValue()));
            if (described != null && described.earlierRows().perRow()) {
                unknown.add(described);
            }
        }
        if (route.schemaChanges() == SchemaChanges.FAIL) {
            throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG609, relation.name() + " has "
                    + added.size() + " column(s) the copy did not have ("
                    + String.join(", ", added.stream().map(i -> relation.columns().get(i)).toList()) + "), and "
                    + "schema-changes is fail: nothing of this batch was applied", "set schema-changes: "
                    + "add-columns on the stream (they are added to " + route.target() + " as they come), or add "
                    + "them yourself: " + String.join("; ", statements) + "; then run again");
        }
        if (!unknown.isEmpty() && new TargetCatalog(connection).hasRows(route.target())
                && lacksAny(route, unknown)) {
            throw unknownEarlierRows(route, unknown);
        }
        flush.pending(pending); // the rows before the change of shape, with the old shape
        pending.remove(route.source());
        try (java.sql.Statement s = connection.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
        Route wider = route;
        for (int i : added) {
            if (!route.columns().containsKey(relation.columns().get(i))) {
                wider = wider.carrying(relation.columns().get(i), relation.types().get(i));
            }
        }
        routes.put(route.source(), wider);
        reshaped = true;
        tables.put(route.source(), describe(wider));
        mappings.keySet().removeIf(r -> r.name().equals(route.source()));
        return wider;
    }

    /**
     * schema-changes: widen, as a load widens: a carried column whose source type now holds values the target's does
     * not (retyped at the source since the copy) becomes the narrowest type of its family holding both, in the
     * batch's transaction, before the rows of the new type are applied.
     */
    private void widen(Route route, ChangeRelation relation, Map<String, TableChanges> pending)
            throws SQLException, ConnectorException {
        TableChanges.Table table = tables.get(relation.name());
        List<String> clauses = new ArrayList<>();
        for (int i = 0; i < relation.columns().size(); i++) {
            String to = route.columns().get(relation.columns().get(i));
            int c = to == null ? -1 : table.columns().indexOf(to);
            if (c < 0 || TypeWidth.fit(relation.types().get(i), table.types().get(c)) != TypeWidth.Fit.WIDENS) {
                continue;
            }
            clauses.add("ALTER COLUMN " + SqlQuote.identifier(to) + " TYPE " + TypeWidth.widened(relation.types()
                    .get(i), table.types().get(c)).orElseThrow());
        }
        if (clauses.isEmpty()) {
            return;
        }
        flush.pending(pending); // the rows before the change of type, into the old one (they fit it)
        pending.remove(route.source());
        try (java.sql.Statement s = connection.createStatement()) {
            s.execute("ALTER TABLE " + table.quoted() + " " + String.join(", ", clauses));
        }
        reshaped = true;
        tables.put(route.source(), describe(route));
        mappings.keySet().removeIf(r -> r.name().equals(route.source()));
    }

    /** PG232: columns whose source rows from before hold values no change carries, added to a target with rows. */
    private static ConnectorException unknownEarlierRows(Route route, List<Column> columns) {
        return UnknownEarlierRows.refusal(route.target(), columns, "the changes carry no value for the rows they do "
                + "not touch", "copy the table again from a new slot (sluice run <spec> --restart-changes, with "
                + "load-mode: truncate or the table emptied first)");
    }

    /** Whether the target lacks one of {@code columns} (a user who added and filled it answered the refusal). */
    private boolean lacksAny(Route route, List<Column> columns) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT count(*) FROM pg_attribute WHERE attrelid = "
                + "to_regclass(?) AND attname = ANY (?) AND attnum > 0 AND NOT attisdropped")) {
            p.setString(1, route.target());
            p.setArray(2, connection.createArrayOf("text", columns.stream().map(c -> route.columns().getOrDefault(
                    c.name(), c.name())).toArray()));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1) < columns.size();
            }
        }
    }

    private static String keyNames(ChangeRelation relation) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < relation.columns().size(); i++) {
            if (relation.key().get(i)) {
                names.add(relation.columns().get(i));
            }
        }
        return String.join(", ", names);
    }
}
