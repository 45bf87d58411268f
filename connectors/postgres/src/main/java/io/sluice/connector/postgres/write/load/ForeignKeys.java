package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The foreign keys between the tables of a run, which no table can honour while the streams load in any order (a
 * child's rows may come before its parent's; a parent cannot be emptied while a child refers to it): those of a table
 * the run creates come once every stream is done; those a loaded table has already are dropped before the first stream
 * starts and come back the same way. Each is added {@code NOT VALID} (a moment's lock on both tables) and then
 * validated (which reads the rows without blocking writers), as pg_restore and pgcopydb order it.
 *
 * <p>Which keys a table owes is written into its stream's marks in the transaction that creates the table or drops
 * the keys, so a resume, or a fresh run taking over an unfinished run, adds them from there; each step is skipped when
 * the catalog shows it done.
 */
public final class ForeignKeys {
    /** The table the keys are of, quoted. */
    static final String TABLE = "fks.table";
    /**
     * The number of keys; key i is {@code fks.i.table} (the table, or a partition of it with keys of its own; marks
     * written before it was kept lack it: the table's), {@code .name}, {@code .add} and {@code .validate}.
     */
    static final String COUNT = "fks.count";
    /** The keys a loaded table had were dropped for the run (with their marks). */
    static final String HELD = "fks.held";
    static final String ADDED = "fks.added";

    private ForeignKeys() {
    }

    /** A foreign key of table {@code table} (quoted): how to add it and, unless it never was, validate it. */
    record Key(String table, String name, String add, Optional<String> validate) {
        Key {
            requireNonNull(table, "table is null");
            requireNonNull(name, "name is null");
            requireNonNull(add, "add is null");
            requireNonNull(validate, "validate is null");
        }

        /** {@code definition} as {@code pg_get_constraintdef} gives it, with the referenced table's name to use. */
        static Key of(String table, String name, String definition) {
            boolean notValid = definition.endsWith(" NOT VALID");
            String add = "ALTER TABLE " + table + " ADD CONSTRAINT " + SqlQuote.identifier(name) + " " + definition
                    + (notValid ? "" : " NOT VALID");
            return new Key(table, name, add, notValid ? Optional.empty() : Optional.of("ALTER TABLE " + table
                    + " VALIDATE CONSTRAINT " + SqlQuote.identifier(name)));
        }

        String drop() {
            return "ALTER TABLE " + table + " DROP CONSTRAINT IF EXISTS " + SqlQuote.identifier(name);
        }
    }

    /**
     * The foreign keys table {@code tableOid} (quoted {@code table}) has to tables among {@code runTables} (quoted
     * names), and those its partitions have of their own (not a copy of the table's: Pagila's payment partitions
     * each refer to customer, and customer could not be emptied while they stand), read on {@code c}, a session with
     * an empty search path ({@link PostgresConnections#qualifying}), so the names come qualified.
     */
    static List<Key> between(Connection c, long tableOid, String table, List<String> runTables) throws SQLException {
        List<Key> keys = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT k.conrelid = ?, quote_ident(n.nspname) || '.' || "
                + "quote_ident(r.relname), k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k "
                + "JOIN pg_class r ON r.oid = k.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace "
                + "WHERE k.contype = 'f' AND k.conparentid = 0 AND (k.conrelid = ? OR k.conrelid IN (SELECT relid "
                + "FROM pg_partition_tree(?::oid))) AND k.confrelid IN (SELECT to_regclass(t) FROM "
                + "unnest(?::text[]) t) ORDER BY k.conrelid <> ?, 2, k.conname")) {
            p.setLong(1, tableOid);
            p.setLong(2, tableOid);
            p.setLong(3, tableOid);
            p.setArray(4, c.createArrayOf("text", runTables.toArray()));
            p.setLong(5, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    keys.add(Key.of(rs.getBoolean(1) ? table : rs.getString(2), rs.getString(3), rs.getString(4)));
                }
            }
        }
        return keys;
    }

    /** The plan's lines for {@code keys}: what runs once every stream is done. */
    static List<String> statements(List<Key> keys) {
        List<String> statements = new ArrayList<>();
        for (Key key : keys) {
            statements.add(key.add());
            key.validate().ifPresent(statements::add);
        }
        return statements;
    }

    /** The keys {@code done} (a stream's marks) records. */
    static List<Key> recorded(Map<String, String> done) {
        int count = Integer.parseInt(done.getOrDefault(COUNT, "0"));
        String table = done.getOrDefault(TABLE, "");
        List<Key> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String validate = done.getOrDefault("fks." + i + ".validate", "");
            keys.add(new Key(done.getOrDefault("fks." + i + ".table", table), done.get("fks." + i + ".name"),
                    done.get("fks." + i + ".add"), validate.isEmpty() ? Optional.empty() : Optional.of(validate)));
        }
        return keys;
    }

    /**
     * Records {@code keys} in the marks, after those recorded already in {@code done}, one per name: a key recorded
     * before wins (the catalog may show it as a killed run's leftover added it, not validated yet).
     */
    static void record(String table, List<Key> keys, Map<String, String> done, LoadMarks marks, LedgerTransaction tx)
            throws ConnectorException {
        Map<List<String>, Key> all = new LinkedHashMap<>();
        recorded(done).forEach(k -> all.put(List.of(k.table(), k.name()), k));
        keys.forEach(k -> all.putIfAbsent(List.of(k.table(), k.name()), k));
        marks.writing(TABLE, table).apply(tx);
        int i = 0;
        for (Key key : all.values()) {
            marks.writing("fks." + i + ".table", key.table()).apply(tx);
            marks.writing("fks." + i + ".name", key.name()).apply(tx);
            marks.writing("fks." + i + ".add", key.add()).apply(tx);
            marks.writing("fks." + i + ".validate", key.validate().orElse("")).apply(tx);
            i++;
        }
        marks.writing(COUNT, String.valueOf(all.size())).apply(tx);
    }

    /** Before the first stream: records {@code keys} and drops them, in the transaction of {@code c}. */
    static void hold(Connection c, String table, List<Key> keys, Map<String, String> done, LoadMarks marks,
                     LedgerTransaction tx) throws SQLException, ConnectorException {
        record(table, keys, done, marks, tx);
        for (Key key : keys) {
            LoadTable.execute(c, key.drop());
        }
        marks.writing(HELD, java.time.Instant.now().toString()).apply(tx);
    }

    /** Whether the marks owe keys not added since they were recorded (or last held off, by a resume). */
    public static boolean owed(Map<String, String> done) {
        if (done.getOrDefault(COUNT, "0").equals("0")) {
            return false;
        }
        String added = done.get(ADDED);
        String held = done.get(HELD);
        return added == null || held != null && java.time.Instant.parse(held).isAfter(java.time.Instant.parse(added));
    }

    /**
     * Once every stream is done: the keys {@code done} records, each added {@code NOT VALID} and then validated,
     * unless the catalog shows it done; then the mark.
     */
    public static void addRecorded(PostgresConnections connections, PostgresLedgerStore ledger, LoadMarks marks,
                            Map<String, String> done) throws ConnectorException {
        String table = done.get(TABLE);
        String current = "";
        try (Connection c = connections.open("adding the foreign keys of " + table)) {
            for (Key key : recorded(done)) {
                boolean atOnce = validatesAtOnce(c, key.table());
                Optional<Boolean> validated = validated(c, key.table(), key.name());
                if (validated.isEmpty()) {
                    current = atOnce && key.validate().isPresent()
                            ? key.add().substring(0, key.add().length() - " NOT VALID".length()) : key.add();
                    LoadTable.execute(c, current);
                    validated = Optional.of(atOnce);
                }
                if (key.validate().isPresent() && !validated.orElse(false)) {
                    current = key.validate().get();
                    LoadTable.execute(c, current);
                }
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "adding the foreign keys of "
                    + table + ": " + current);
        }
        ledger.inTransaction(marks.writing(ADDED, java.time.Instant.now().toString()));
    }

    /**
     * Whether the table's keys are added validated at once: a partitioned table before PostgreSQL 18, which refuses
     * a NOT VALID foreign key on one.
     */
    private static boolean validatesAtOnce(Connection c, String table) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT relkind = 'p' AND current_setting('server_version_num')"
                + "::int < 180000 FROM pg_class WHERE oid = to_regclass(?)")) {
            p.setString(1, table);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Whether the table's foreign key {@code name} exists, and whether it is validated: empty when it does not. */
    private static Optional<Boolean> validated(Connection c, String table, String name) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT convalidated FROM pg_constraint "
                + "WHERE conrelid = to_regclass(?) AND conname = ?")) {
            p.setString(1, table);
            p.setString(2, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(rs.getBoolean(1)) : Optional.empty();
            }
        }
    }
}
