package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

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
 * The applier's temporary tables that a batch's folded rows are copied into (binary COPY through the toolkit's
 * {@link BinaryCopyEncoder}: no value is parsed or converted on the way) before set-wise statements move them into the target table. One table per shape of row
 * (its columns' types), made on first use on the applier's connection and emptied after each use.
 *
 * <p>A stage row: {@code o} what to do ('D' delete, 'I' insert, 'U' upsert, 'P' patch, 'M' move a key), {@code m}
 * for 'P' and 'M' which values came (one byte per column, 1 or 0), {@code c0..} the values in the target's column
 * order, {@code k0..} for 'M' the old key.
 */
final class ChangeStage {
    /** Every one-byte value, at its own index: an op or a mask byte written without an array each. */
    private static final byte[] BYTES = new byte[256];

    static {
        for (int i = 0; i < BYTES.length; i++) {
            BYTES[i] = (byte) i;
        }
    }

    /** One row to stage; {@code oldKey} only for a key move. */
    record Row(char op, boolean[] known, byte[][] values, byte[][] oldKey) {
    }

    private final Connection connection;
    private final Map<List<String>, String> names = new HashMap<>();
    /** Stages known to exist: a rolled-back transaction takes the ones it made with it. */
    private final Set<String> made = new HashSet<>();

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
            PostgresConnections.madeTemporaryObjects(connection);
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
            BinaryCopyEncoder out = new BinaryCopyEncoder((buffer, offset, length) -> {
                try {
                    in.writeToCopy(buffer, offset, length);
                } catch (SQLException e) {
                    throw new CopyFailed(e);
                }
            });
            for (Row row : rows) {
                out.startRow((staged ? 2 : 0) + columns + keys);
                if (staged) {
                    out.writeBytes(BYTES, row.op(), 1);
                    if (row.known() == null) {
                        out.writeNull();
                    } else {
                        out.beginField(row.known().length);
                        for (boolean k : row.known()) {
                            out.putBytes(BYTES, k ? 1 : 0, 1);
                        }
                    }
                }
                for (int c = 0; c < columns; c++) {
                    field(out, row.values()[c]);
                }
                for (int k = 0; k < keys; k++) {
                    field(out, row.oldKey()[k]);
                }
            }
            out.finish();
            in.endCopy();
        } catch (CopyFailed e) {
            throw e.getCause();
        } catch (ConnectorException e) {
            throw new IllegalStateException("the stage's COPY sink throws no connector error", e);
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

    private static void field(BinaryCopyEncoder out, byte[] value) throws ConnectorException {
        if (value == null) {
            out.writeNull();
        } else {
            out.writeBytes(value, 0, value.length);
        }
    }

    /** A COPY write failed: carried through the encoder's sink, thrown again as it was. */
    private static final class CopyFailed extends RuntimeException {
        CopyFailed(SQLException cause) {
            super(cause);
        }

        @Override
        public synchronized SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }
}
