package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.spi.changes.ChangeRelation;
import io.sluice.spi.changes.RowChange;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import static java.util.Objects.requireNonNull;

/**
 * The changes of one target table within a stretch of a batch that holds no key change or TRUNCATE, folded to one
 * final state per key (the row deleted, inserted, upserted, or some columns of it patched), then applied set-wise:
 * the rows are copied into a {@link ChangeStage} and one statement per kind moves them into the table. Rows of
 * different keys do not depend on each other, so deletes, then patches, then inserts and upserts give the same end
 * state as the changes one by one.
 */
final class TableChanges {
    /**
     * A target table the changes go to: its columns, their types, the types a staged value of another type is cast
     * to (without a length: the column's own rules check it) and its key.
     */
    record Table(String quoted, List<String> columns, List<String> types, List<String> castTypes,
                 List<Integer> keyColumns) {
        Table {
            requireNonNull(quoted, "quoted is null");
            columns = List.copyOf(columns);
            types = List.copyOf(types);
            castTypes = List.copyOf(castTypes);
            keyColumns = List.copyOf(keyColumns);
        }
    }

    /**
     * Where each of a source relation's columns lands in {@link Table#columns()} (-1 for one not carried), which
     * target columns no source column feeds (dropped at the source: written NULL from then on; or added at the source
     * after this relation's changes were written: their rows hold the column's value for rows from before, in
     * {@code unfedValues} as text), and the type each target column's values arrive as (the source's type for binary
     * values, else text).
     */
    record Mapping(ChangeRelation relation, int[] targetOf, int[] keySource, boolean[] unfed, List<String> stageTypes,
                   byte[][] unfedValues) {
        Mapping {
            stageTypes = List.copyOf(stageTypes);
        }
    }

    /** A row's key values, compared by content. */
    private record Key(byte[][] values) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key other && Arrays.deepEquals(values, other.values);
        }

        @Override
        public int hashCode() {
            return Arrays.deepHashCode(values);
        }
    }

    /** A key's final state; {@code values} in target column order, {@code known} which of them were sent. */
    private static final class Pending {
        /** 'D' delete, 'I' insert (the batch saw the row first inserted), 'U' upsert, 'P' patch. */
        char op;
        byte[][] values;
        boolean[] known;
    }

    private final Table table;
    private final boolean insertsMayExist;
    private final Connection connection;
    private final ChangeStage stage;
    private final Map<Key, Pending> byKey = new LinkedHashMap<>();
    /** The stage types of the rows pending: rows of another shape flush them first. */
    private List<String> stageTypes;

    /**
     * {@code insertsMayExist}: a row the source inserted may be in the table already (the batch is applied again
     * after a unique violation, the replay after a resumed copy), so inserts upsert; else they are plain inserts,
     * and such a row fails the batch.
     */
    TableChanges(Table table, Connection connection, ChangeStage stage, boolean insertsMayExist) {
        this.insertsMayExist = insertsMayExist;
        this.table = requireNonNull(table, "table is null");
        this.connection = requireNonNull(connection, "connection is null");
        this.stage = requireNonNull(stage, "stage is null");
    }

    /** The target table, quoted. */
    String quoted() {
        return table.quoted();
    }

    /** Folds an INSERT, an UPDATE that keeps its key, or a DELETE into the key's final state. */
    void add(RowChange change, Mapping mapping) throws SQLException {
        if (stageTypes != null && !stageTypes.equals(mapping.stageTypes())) {
            flush(); // the source described the table anew, with other types
        }
        stageTypes = mapping.stageTypes();
        switch (change.kind()) {
            case DELETE -> {
                Pending pending = byKey.computeIfAbsent(key(mapping, change.oldKey()), k -> new Pending());
                pending.op = 'D';
                pending.values = null;
                pending.known = null;
            }
            case INSERT, UPDATE -> {
                byte[][] values = new byte[table.columns().size()][];
                boolean[] known = mapping.unfed().clone();
                fill(change, mapping, values, known);
                Key key = key(mapping, change.values());
                Pending pending = byKey.get(key);
                boolean whole = allKnown(known);
                if (pending == null || pending.op == 'D' || whole) {
                    char op;
                    if (pending == null) {
                        // First seen as an insert: the row is not in the table (unless a replay meets it again).
                        op = change.kind() == RowChange.Kind.INSERT ? 'I' : whole ? 'U' : 'P';
                        pending = new Pending();
                        byKey.put(key, pending);
                    } else {
                        op = pending.op == 'I' ? 'I' : whole ? 'U' : 'P';
                    }
                    pending.op = op;
                    pending.values = values;
                    pending.known = known;
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
                    if (pending.op != 'I') {
                        pending.op = allKnown(known) ? 'U' : 'P';
                    }
                }
            }
            default -> throw new IllegalArgumentException("not folded: " + change.kind());
        }
    }

    /** Applies the folded changes (in the connection's open transaction) and forgets them. */
    void flush() throws SQLException {
        if (byKey.isEmpty()) {
            return;
        }
        int width = table.columns().size();
        // Rows to insert whose values are binary in the table's own types skip the stage: copied straight in. A
        // plain INSERT (or COPY) skips ON CONFLICT's checks; where a row may be there already, the upsert.
        boolean direct = !insertsMayExist && stageTypes.equals(table.types());
        List<ChangeStage.Row> rows = new ArrayList<>(byKey.size());
        List<ChangeStage.Row> insertRows = new ArrayList<>();
        boolean deletes = false;
        boolean patches = false;
        boolean inserts = false;
        int upserts = 0;
        for (Map.Entry<Key, Pending> entry : byKey.entrySet()) {
            Pending p = entry.getValue();
            switch (p.op) {
                case 'D' -> {
                    byte[][] values = new byte[width][];
                    byte[][] key = entry.getKey().values();
                    for (int k = 0; k < key.length; k++) {
                        values[table.keyColumns().get(k)] = key[k];
                    }
                    rows.add(new ChangeStage.Row('D', null, values, null));
                    deletes = true;
                }
                case 'P' -> {
                    rows.add(new ChangeStage.Row('P', p.known, p.values, null));
                    patches = true;
                }
                case 'I' -> {
                    (direct ? insertRows : rows).add(new ChangeStage.Row('I', null, p.values, null));
                    inserts = true;
                }
                default -> {
                    rows.add(new ChangeStage.Row('U', null, p.values, null));
                    upserts++;
                }
            }
        }
        byKey.clear();
        String staged = stage.ready(stageTypes, List.of());
        if (!rows.isEmpty()) {
            stage.copy(staged, rows, width, 0);
        }
        try (Statement s = connection.createStatement()) {
            if (deletes) {
                s.executeUpdate("DELETE FROM " + table.quoted() + " t USING " + staged + " s WHERE s.o = 'D' AND "
                        + keyMatch(this::staged));
            }
            if (patches) {
                String set = patchSet(c -> !table.keyColumns().contains(c), true);
                if (!set.isEmpty()) {
                    s.executeUpdate("UPDATE " + table.quoted() + " t SET " + set + " FROM " + staged + " s WHERE "
                            + "s.o = 'P' AND " + keyMatch(this::staged));
                }
            }
            if (upserts > 0) {
                // A plain UPDATE: ON CONFLICT DO UPDATE would lock each row before updating it (a WAL record more
                // per row). A row that is not there (a resumed copy's replay window) is inserted after.
                String set = patchSet(c -> !table.keyColumns().contains(c), false);
                int updated = set.isEmpty() ? 0 : s.executeUpdate("UPDATE " + table.quoted() + " t SET " + set
                        + " FROM " + staged + " s WHERE s.o = 'U' AND " + keyMatch(this::staged));
                if (updated < upserts) {
                    s.executeUpdate(insert(staged, 'U') + onConflict(false));
                }
            }
            if (inserts && direct) {
                stage.copyInto(table.quoted() + " (" + columnList() + ")", insertRows, width);
            } else if (inserts) {
                s.executeUpdate(insert(staged, 'I') + (insertsMayExist ? onConflict(true) : ""));
            }
        }
        stage.clear(staged);
    }

    /** An UPDATE that moved a row to another key: applied at once, in its place among the other changes. */
    void moveKey(RowChange change, Mapping mapping) throws SQLException {
        flush();
        stageTypes = mapping.stageTypes();
        byte[][] values = new byte[table.columns().size()][];
        boolean[] known = mapping.unfed().clone();
        fill(change, mapping, values, known);
        byte[][] oldKey = key(mapping, change.oldKey()).values();
        List<String> keyTypes = new ArrayList<>();
        for (int c : table.keyColumns()) {
            keyTypes.add(mapping.stageTypes().get(c));
        }
        String staged = stage.ready(mapping.stageTypes(), keyTypes);
        stage.copy(staged, List.of(new ChangeStage.Row('M', known, values, oldKey)), values.length, oldKey.length);
        try (Statement s = connection.createStatement()) {
            if (insertsMayExist) {
                // A resumed copy's replay: partitions of two moments may hold the row at its old key (copied
                // before the move) and at its new one (copied after). The move's state then wins over the later
                // copy, which the changes after it bring back.
                s.executeUpdate("DELETE FROM " + table.quoted() + " t USING " + staged + " s WHERE "
                        + keyMatch(this::staged) + " AND EXISTS (SELECT 1 FROM " + table.quoted() + " o WHERE "
                        + oldKeyMatch("o") + ")");
            }
            int moved = s.executeUpdate("UPDATE " + table.quoted() + " t SET " + patchSet(c -> true, true)
                    + " FROM " + staged + " s WHERE " + oldKeyMatch("t"));
            if (insertsMayExist && moved == 0 && allKnown(known)) {
                // Not at its old key (that partition was copied after the move): the row as the move left it.
                s.executeUpdate(insert(staged, 'M') + onConflict(true));
            }
        }
        stage.clear(staged);
    }

    /** {@code <alias>.<key column> = <staged old key value>} for every key column, joined by AND. */
    private String oldKeyMatch(String alias) {
        StringBuilder match = new StringBuilder();
        for (int k = 0; k < table.keyColumns().size(); k++) {
            int c = table.keyColumns().get(k);
            match.append(k == 0 ? "" : " AND ").append(alias).append('.')
                    .append(SqlQuote.identifier(table.columns().get(c))).append(" = ").append(cast("s.k" + k,
                            stageTypes.get(c), c));
        }
        return match.toString();
    }

    void truncate() throws SQLException {
        byKey.clear();
        try (Statement s = connection.createStatement()) {
            s.execute("TRUNCATE " + table.quoted());
        }
    }

    /** The values a change sent, in target column order, and which of them it sent. */
    private static void fill(RowChange change, Mapping mapping, byte[][] values, boolean[] known) {
        for (int c = 0; c < values.length; c++) {
            if (mapping.unfed()[c]) {
                values[c] = mapping.unfedValues()[c]; // NULL, or what the source's rows from before a column hold
            }
        }
        for (int i = 0; i < mapping.targetOf().length; i++) {
            int to = mapping.targetOf()[i];
            if (to >= 0 && !change.isUnchanged(i)) {
                values[to] = change.values().get(i);
                known[to] = true;
            }
        }
    }

    /**
     * {@code col = <staged value>} for the columns {@code which} takes; {@code masked}: only where the row sent the
     * value ({@code CASE WHEN <sent> THEN <staged value> ELSE col END}).
     */
    private String patchSet(java.util.function.IntPredicate which, boolean masked) {
        StringBuilder set = new StringBuilder();
        for (int c = 0; c < table.columns().size(); c++) {
            if (!which.test(c)) {
                continue;
            }
            String column = SqlQuote.identifier(table.columns().get(c));
            set.append(set.isEmpty() ? "" : ", ").append(column).append(" = ");
            if (masked) {
                set.append("CASE WHEN get_byte(s.m, ").append(c).append(") = 1 THEN ").append(staged(c))
                        .append(" ELSE t.").append(column).append(" END");
            } else {
                set.append(staged(c));
            }
        }
        return set.toString();
    }

    /** {@code t.<key column> = <value of it>} for every key column, joined by AND. */
    private String keyMatch(IntFunction<String> value) {
        StringBuilder match = new StringBuilder();
        for (int i = 0; i < table.keyColumns().size(); i++) {
            int c = table.keyColumns().get(i);
            match.append(i == 0 ? "" : " AND ").append("t.").append(SqlQuote.identifier(table.columns().get(c)))
                    .append(" = ").append(value.apply(c));
        }
        return match.toString();
    }

    /** Column {@code c}'s staged value, as the target's type. */
    private String staged(int c) {
        return cast("s.c" + c, stageTypes.get(c), c);
    }

    /** {@code value}, staged as {@code stagedAs}, for target column {@code c}: as it is when the types are equal. */
    private String cast(String value, String stagedAs, int c) {
        return stagedAs.equals(table.types().get(c)) ? value : value + "::" + table.castTypes().get(c);
    }

    private String columnList() {
        StringBuilder list = new StringBuilder();
        for (int c = 0; c < table.columns().size(); c++) {
            list.append(c == 0 ? "" : ", ").append(SqlQuote.identifier(table.columns().get(c)));
        }
        return list.toString();
    }

    private String insert(String staged, char op) {
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(table.quoted()).append(" (").append(columnList())
                .append(") SELECT ");
        for (int c = 0; c < table.columns().size(); c++) {
            sql.append(c == 0 ? "" : ", ").append(staged(c));
        }
        return sql.append(" FROM ").append(staged).append(" s WHERE s.o = '").append(op).append("'").toString();
    }

    /** {@code ON CONFLICT (key) DO UPDATE SET} every other column, or {@code DO NOTHING}. */
    private String onConflict(boolean update) {
        StringBuilder sql = new StringBuilder(" ON CONFLICT (");
        for (int i = 0; i < table.keyColumns().size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(SqlQuote.identifier(table.columns().get(table.keyColumns().get(i))));
        }
        sql.append(") DO ");
        List<Integer> others = new ArrayList<>();
        for (int c = 0; c < table.columns().size(); c++) {
            if (!table.keyColumns().contains(c)) {
                others.add(c);
            }
        }
        if (others.isEmpty() || !update) {
            return sql.append("NOTHING").toString();
        }
        sql.append("UPDATE SET ");
        for (int i = 0; i < others.size(); i++) {
            String column = SqlQuote.identifier(table.columns().get(others.get(i)));
            sql.append(i == 0 ? "" : ", ").append(column).append(" = EXCLUDED.").append(column);
        }
        return sql.toString();
    }

    private static Key key(Mapping mapping, List<byte[]> values) {
        byte[][] key = new byte[mapping.keySource().length][];
        for (int i = 0; i < key.length; i++) {
            key[i] = values.get(mapping.keySource()[i]);
        }
        return new Key(key);
    }

    private static boolean allKnown(boolean[] known) {
        for (boolean k : known) {
            if (!k) {
                return false;
            }
        }
        return true;
    }
}
