package io.sluice.connector.postgres.changes;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The applier's temporary tables that a batch's folded rows are copied into (binary COPY: no value is parsed or
 * converted on the way) before set-wise statements move them into the target table. One table per shape of row
 * (its columns' types), made on first use on the applier's connection and emptied after each use.
 *
 * <p>A stage row: {@code o} what to do ('D' delete, 'I' insert, 'U' upsert, 'P' patch, 'M' move a key), {@code m}
 * for 'P' and 'M' which values came (one byte per column, 1 or 0), {@code c0..} the values in the target's column
 * order, {@code k0..} for 'M' the old key.
 */
final class ChangeStage {
    private static final byte[] HEADER = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);

    /** One row to stage; {@code oldKey} only for a key move. */
    record Row(char op, boolean[] known, byte[][] values, byte[][] oldKey) {
    }

    private final Connection connection;
    private final Map<List<String>, String> names = new HashMap<>();
    /** Stages known to exist: a rolled-back transaction takes the ones it made with it. */
    private final Set<String> made = new HashSet<>();
    /** Rows are gathered up to this much before a write; a value bigger than it goes out on its own. */
    private static final int FLUSH_BYTES = 1 << 20;

    private final byte[] buffer = new byte[FLUSH_BYTES + 64 * 1024];
    private int used;

    ChangeStage(Connection connection) {
        this.connection = requireNonNull(connection, "connection is null");
    }

    /** The stage for rows of these value types (and old key types), made if missing. */
    String ready(List<String> valueTypes, List<String> keyTypes) throws SQLException {
        List<String> shape = new java.util.ArrayList<>(valueTypes);
        shape.add("|");
        shape.addAll(keyTypes);
        String name = names.computeIfAbsent(List.copyOf(shape), s -> "sluice_stage_" + names.size());
        if (made.add(name)) {
            StringBuilder ddl = new StringBuilder("CREATE TEMPORARY TABLE IF NOT EXISTS ").append(name)
                    .append(" (o \"char\", m bytea");
            for (int c = 0; c < valueTypes.size(); c++) {
                ddl.append(", c").append(c).append(' ').append(valueTypes.get(c));
            }
            for (int k = 0; k < keyTypes.size(); k++) {
                ddl.append(", k").append(k).append(' ').append(keyTypes.get(k));
            }
            ddl.append(")");
            try (Statement s = connection.createStatement()) {
                s.execute(ddl.toString());
            }
        }
        return name;
    }

    /** After a rollback: the stages made in it are gone. */
    void forget() {
        made.clear();
    }

    /** Copies {@code rows} into {@code stage} (which {@link #ready} returned), in the open transaction. */
    void copy(String stage, Iterable<Row> rows, int columns, int keys) throws SQLException {
        copy(stage, rows, columns, keys, true);
    }

    /**
     * Copies the values of {@code rows} straight into {@code table} (its quoted name and column list), in the open
     * transaction: for rows to insert whose values are binary in the table's own types.
     */
    void copyInto(String table, Iterable<Row> rows, int columns) throws SQLException {
        copy(table, rows, columns, 0, false);
    }

    private void copy(String into, Iterable<Row> rows, int columns, int keys, boolean staged) throws SQLException {
        CopyIn in = connection.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + into + " FROM STDIN (FORMAT binary)");
        try {
            used = 0;
            ensure(in, HEADER.length + 8);
            System.arraycopy(HEADER, 0, buffer, 0, HEADER.length);
            used = HEADER.length;
            putInt(0); // flags
            putInt(0); // header extension length
            for (Row row : rows) {
                ensure(in, 2 + 4 + 1 + 4);
                if (staged) {
                    putShort(2 + columns + keys);
                    putInt(1);
                    buffer[used++] = (byte) row.op();
                    if (row.known() == null) {
                        putInt(-1);
                    } else {
                        ensure(in, 4 + row.known().length);
                        putInt(row.known().length);
                        for (boolean k : row.known()) {
                            buffer[used++] = (byte) (k ? 1 : 0);
                        }
                    }
                } else {
                    putShort(columns);
                }
                for (int c = 0; c < columns; c++) {
                    field(in, row.values()[c]);
                }
                for (int k = 0; k < keys; k++) {
                    field(in, row.oldKey()[k]);
                }
            }
            ensure(in, 2);
            putShort(-1);
            in.writeToCopy(buffer, 0, used);
            used = 0;
            in.endCopy();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    /** Empties {@code stage} for the next use in this transaction. */
    void clear(String stage) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("TRUNCATE " + stage);
        }
    }

    private void field(CopyIn in, byte[] value) throws SQLException {
        ensure(in, 4);
        putInt(value == null ? -1 : value.length);
        if (value == null) {
            return;
        }
        if (value.length > FLUSH_BYTES) {
            in.writeToCopy(buffer, 0, used);
            used = 0;
            in.writeToCopy(value, 0, value.length);
            return;
        }
        ensure(in, value.length);
        System.arraycopy(value, 0, buffer, used, value.length);
        used += value.length;
    }

    /** Room for {@code more} bytes (at most {@link #FLUSH_BYTES}), writing out what is gathered when full. */
    private void ensure(CopyIn in, int more) throws SQLException {
        if (used + more > buffer.length) {
            in.writeToCopy(buffer, 0, used);
            used = 0;
        }
    }

    private void putShort(int v) {
        buffer[used++] = (byte) (v >>> 8);
        buffer[used++] = (byte) v;
    }

    private void putInt(int v) {
        buffer[used++] = (byte) (v >>> 24);
        buffer[used++] = (byte) (v >>> 16);
        buffer[used++] = (byte) (v >>> 8);
        buffer[used++] = (byte) v;
    }
}
