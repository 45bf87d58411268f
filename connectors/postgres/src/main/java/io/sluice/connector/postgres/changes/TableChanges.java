package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.spi.ChangeRelation;
import io.sluice.spi.RowChange;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The changes of one target table within a stretch of a batch that holds no key change or TRUNCATE, folded to one
 * final state per key (the row deleted, the row as a whole, or some columns of it), then applied set-wise: one
 * statement per kind over arrays of text values that the target casts to its columns' types. Rows of different keys
 * do not depend on each other, so deletes, then partial updates, then upserts give the same end state as the changes
 * one by one.
 */
final class TableChanges {
    /** A target table the changes go to, and how source columns land in it. */
    record Table(String quoted, List<String> columns, List<String> types, List<Integer> keyColumns) {
        Table {
            requireNonNull(quoted, "quoted is null");
            columns = List.copyOf(columns);
            types = List.copyOf(types);
            keyColumns = List.copyOf(keyColumns);
        }
    }

    /**
     * Where each of a source relation's columns lands in {@link Table#columns()} (-1 for one not carried), and
     * which target columns no source column feeds (dropped at the source: written NULL from then on).
     */
    record Mapping(ChangeRelation relation, int[] targetOf, int[] keySource, boolean[] unfed) {
    }

    private enum Kind { DELETE, PATCH, UPSERT }

    /** A key's final state; {@code values} in target column order, {@code known} which of them were sent. */
    private static final class Pending {
        Kind kind;
        String[] values;
        boolean[] known;
    }

    private final Table table;
    private final Map<List<String>, Pending> byKey = new LinkedHashMap<>();

    TableChanges(Table table) {
        this.table = requireNonNull(table, "table is null");
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    /** Folds an INSERT, an UPDATE that keeps its key, or a DELETE into the key's final state. */
    void add(RowChange change, Mapping mapping) {
        switch (change.kind()) {
            case DELETE -> {
                List<String> key = key(mapping, change.oldKey());
                Pending pending = byKey.computeIfAbsent(key, k -> new Pending());
                pending.kind = Kind.DELETE;
                pending.values = null;
                pending.known = null;
            }
            case INSERT, UPDATE -> {
                String[] values = new String[table.columns().size()];
                boolean[] known = mapping.unfed().clone();
                for (int i = 0; i < mapping.targetOf().length; i++) {
                    int to = mapping.targetOf()[i];
                    if (to >= 0 && !change.isUnchanged(i)) {
                        values[to] = change.values().get(i);
                        known[to] = true;
                    }
                }
                List<String> key = key(mapping, change.values());
                Pending pending = byKey.get(key);
                boolean whole = allKnown(known);
                if (pending == null || pending.kind == Kind.DELETE || whole) {
                    pending = pending == null ? new Pending() : pending;
                    pending.kind = whole ? Kind.UPSERT : Kind.PATCH;
                    pending.values = values;
                    pending.known = known;
                    byKey.put(key, pending);
                } else {
                    // Earlier values of this key fill the ones this change left out (unchanged TOAST values).
                    for (int c = 0; c < values.length; c++) {
                        if (!known[c] && pending.known[c]) {
                            values[c] = pending.values[c];
                            known[c] = true;
                        }
                    }
                    pending.values = values;
                    pending.known = known;
                    pending.kind = allKnown(known) ? Kind.UPSERT : Kind.PATCH;
                }
            }
            default -> throw new IllegalArgumentException("not folded: " + change.kind());
        }
    }

    /** Applies the folded changes on {@code connection} (in its open transaction) and forgets them. */
    void flush(Connection connection) throws SQLException {
        if (byKey.isEmpty()) {
            return;
        }
        List<List<String>> deletes = new ArrayList<>();
        List<Pending> upserts = new ArrayList<>();
        Map<String, List<Pending>> patches = new LinkedHashMap<>();
        for (Map.Entry<List<String>, Pending> entry : byKey.entrySet()) {
            Pending p = entry.getValue();
            switch (p.kind) {
                case DELETE -> deletes.add(entry.getKey());
                case UPSERT -> upserts.add(p);
                case PATCH -> patches.computeIfAbsent(Arrays.toString(p.known), k -> new ArrayList<>()).add(p);
            }
        }
        byKey.clear();
        if (!deletes.isEmpty()) {
            delete(connection, deletes);
        }
        for (List<Pending> group : patches.values()) {
            patch(connection, group);
        }
        if (!upserts.isEmpty()) {
            upsert(connection, upserts);
        }
    }

    /** An UPDATE that moved a row to another key: applied at once, in its place among the other changes. */
    void moveKey(Connection connection, RowChange change, Mapping mapping) throws SQLException {
        List<String> oldKey = key(mapping, change.oldKey());
        String[] values = new String[table.columns().size()];
        boolean[] known = mapping.unfed().clone();
        for (int i = 0; i < mapping.targetOf().length; i++) {
            int to = mapping.targetOf()[i];
            if (to >= 0 && !change.isUnchanged(i)) {
                values[to] = change.values().get(i);
                known[to] = true;
            }
        }
        List<Integer> set = known(known);
        StringBuilder sql = new StringBuilder("UPDATE ").append(table.quoted()).append(" t SET ");
        for (int i = 0; i < set.size(); i++) {
            int c = set.get(i);
            sql.append(i == 0 ? "" : ", ").append(SqlQuote.identifier(table.columns().get(c))).append(" = CAST(? AS ")
                    .append(table.types().get(c)).append(")");
        }
        sql.append(" WHERE ").append(keyMatch(c -> "CAST(? AS " + table.types().get(c) + ")"));
        try (PreparedStatement p = connection.prepareStatement(sql.toString())) {
            int at = 1;
            for (int c : set) {
                p.setString(at++, values[c]);
            }
            for (String k : oldKey) {
                p.setString(at++, k);
            }
            p.executeUpdate();
        }
    }

    void truncate(Connection connection) throws SQLException {
        byKey.clear();
        try (PreparedStatement p = connection.prepareStatement("TRUNCATE " + table.quoted())) {
            p.execute();
        }
    }

    /** {@code t.<key column> = <value of it>} for every key column, joined by AND. */
    private String keyMatch(java.util.function.IntFunction<String> value) {
        StringBuilder match = new StringBuilder();
        for (int i = 0; i < table.keyColumns().size(); i++) {
            int c = table.keyColumns().get(i);
            match.append(i == 0 ? "" : " AND ").append("t.").append(SqlQuote.identifier(table.columns().get(c)))
                    .append(" = ").append(value.apply(c));
        }
        return match.toString();
    }

    /** {@code unnest(?::text[], ...) AS u(c<i>, ...)}: one text array parameter per column, named by its index. */
    private static String unnest(List<Integer> columns) {
        StringBuilder sql = new StringBuilder("unnest(");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("?::text[]");
        }
        sql.append(") AS u(");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("c").append(columns.get(i));
        }
        return sql.append(")").toString();
    }

    /** Column {@code c}'s value from {@link #unnest}, as the target's type. */
    private String fromUnnest(int c) {
        return "u.c" + c + "::" + table.types().get(c);
    }

    private void delete(Connection connection, List<List<String>> keys) throws SQLException {
        int width = table.keyColumns().size();
        String sql = "DELETE FROM " + table.quoted() + " t USING " + unnest(table.keyColumns()) + " WHERE "
                + keyMatch(this::fromUnnest);
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            for (int i = 0; i < width; i++) {
                String[] column = new String[keys.size()];
                for (int r = 0; r < keys.size(); r++) {
                    column[r] = keys.get(r).get(i);
                }
                p.setArray(i + 1, text(connection, column));
            }
            p.executeUpdate();
        }
    }

    private void patch(Connection connection, List<Pending> rows) throws SQLException {
        List<Integer> set = known(rows.getFirst().known);
        StringBuilder sql = new StringBuilder("UPDATE ").append(table.quoted()).append(" t SET ");
        for (int i = 0; i < set.size(); i++) {
            int c = set.get(i);
            sql.append(i == 0 ? "" : ", ").append(SqlQuote.identifier(table.columns().get(c))).append(" = ")
                    .append(fromUnnest(c));
        }
        sql.append(" FROM ").append(unnest(set)).append(" WHERE ").append(keyMatch(this::fromUnnest));
        try (PreparedStatement p = connection.prepareStatement(sql.toString())) {
            bindColumns(connection, p, rows, set);
            p.executeUpdate();
        }
    }

    private void upsert(Connection connection, List<Pending> rows) throws SQLException {
        int width = table.columns().size();
        List<Integer> all = new ArrayList<>(width);
        for (int c = 0; c < width; c++) {
            all.add(c);
        }
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(table.quoted()).append(" (");
        for (int c = 0; c < width; c++) {
            sql.append(c == 0 ? "" : ", ").append(SqlQuote.identifier(table.columns().get(c)));
        }
        sql.append(") SELECT ");
        for (int c = 0; c < width; c++) {
            sql.append(c == 0 ? "" : ", ").append(fromUnnest(c));
        }
        sql.append(" FROM ").append(unnest(all));
        sql.append(" ON CONFLICT (");
        for (int i = 0; i < table.keyColumns().size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(SqlQuote.identifier(table.columns().get(table.keyColumns().get(i))));
        }
        sql.append(") DO ");
        List<Integer> others = all.stream().filter(c -> !table.keyColumns().contains(c)).toList();
        if (others.isEmpty()) {
            sql.append("NOTHING");
        } else {
            sql.append("UPDATE SET ");
            for (int i = 0; i < others.size(); i++) {
                String column = SqlQuote.identifier(table.columns().get(others.get(i)));
                sql.append(i == 0 ? "" : ", ").append(column).append(" = EXCLUDED.").append(column);
            }
        }
        try (PreparedStatement p = connection.prepareStatement(sql.toString())) {
            bindColumns(connection, p, rows, all);
            p.executeUpdate();
        }
    }

    private static void bindColumns(Connection connection, PreparedStatement p, List<Pending> rows,
                                    List<Integer> columns) throws SQLException {
        for (int i = 0; i < columns.size(); i++) {
            int c = columns.get(i);
            String[] column = new String[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                column[r] = rows.get(r).values[c];
            }
            p.setArray(i + 1, text(connection, column));
        }
    }

    private static Array text(Connection connection, String[] values) throws SQLException {
        return connection.createArrayOf("text", values);
    }

    private List<String> key(Mapping mapping, List<String> values) {
        String[] key = new String[mapping.keySource().length];
        for (int i = 0; i < key.length; i++) {
            key[i] = values.get(mapping.keySource()[i]);
        }
        return Arrays.asList(key);
    }

    private static boolean allKnown(boolean[] known) {
        for (boolean k : known) {
            if (!k) {
                return false;
            }
        }
        return true;
    }

    private static List<Integer> known(boolean[] known) {
        List<Integer> columns = new ArrayList<>();
        for (int c = 0; c < known.length; c++) {
            if (known[c]) {
                columns.add(c);
            }
        }
        return columns;
    }
}
