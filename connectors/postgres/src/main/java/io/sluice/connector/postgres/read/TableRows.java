package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.TargetRows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A target table's rows for {@code sluice compare} and {@code verify: compare}: digests, rows listed, and the primary
 * key they are listed by. Read on connections of their own (in one exported snapshot once {@link #pinned}), or, for a
 * load not yet committed, on the load's own connection in its transaction ({@link #inTransaction}), one query after
 * another.
 *
 * @param table    the table read (quoted)
 * @param keyTable the table whose primary key lists the rows when {@code table} has none yet (a shadow before its
 *                 swap takes the key of the table it replaces)
 * @param borrowed the open transaction's connection, when the rows are read there
 * @param pin      the snapshot every statement reads in, and the transaction that holds it
 */
public record TableRows(PostgresConnections connections, String table, String keyTable,
                        Optional<Connection> borrowed, Optional<Pin> pin) implements TargetRows {
    /** An exported snapshot ({@code pg_export_snapshot()}) and the transaction that keeps it valid. */
    public record Pin(Connection holder, String snapshot) {
        public Pin {
            requireNonNull(holder, "holder is null");
            requireNonNull(snapshot, "snapshot is null");
        }
    }

    public TableRows {
        requireNonNull(connections, "connections is null");
        requireNonNull(table, "table is null");
        requireNonNull(keyTable, "keyTable is null");
        requireNonNull(borrowed, "borrowed is null");
        requireNonNull(pin, "pin is null");
    }

    /** The rows of {@code table} as committed. */
    public static TableRows of(PostgresConnections connections, String table) {
        return new TableRows(connections, table, table, Optional.empty(), Optional.empty());
    }

    /** The rows of a new table that will replace {@code live}, keyed as {@code live} is until it has a key itself. */
    public static TableRows staged(PostgresConnections connections, String table, String live) {
        return new TableRows(connections, table, live, Optional.empty(), Optional.empty());
    }

    /**
     * The rows of {@code table} as the open transaction on {@code connection} sees them; sets the digest settings for
     * the rest of the transaction (SET LOCAL), so the load's session is as it was after the commit.
     */
    public static TableRows inTransaction(PostgresConnections connections, Connection connection, String table,
                                          String keyTable) throws SQLException {
        DigestQuery.prepareLocal(connection);
        return new TableRows(connections, table, keyTable, Optional.of(connection), Optional.empty());
    }

    /** The rows in a snapshot exported now, which a read-only transaction holds until {@link #close}. */
    @Override
    public TargetRows pinned() throws ConnectorException {
        if (borrowed.isPresent() || pin.isPresent()) {
            return this; // one transaction already
        }
        Connection holder = connections.open("holding a snapshot of " + table);
        try {
            holder.setAutoCommit(false);
            holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            holder.setReadOnly(true);
            try (Statement s = holder.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_export_snapshot()")) {
                rs.next();
                return new TableRows(connections, table, keyTable, borrowed, Optional.of(new Pin(holder,
                        rs.getString(1))));
            }
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(holder);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "exporting a snapshot of " + table);
        }
    }

    @Override
    public void close() {
        pin.ifPresent(p -> PostgresConnections.closeQuietly(p.holder()));
    }

    @Override
    public List<String> primaryKey() throws ConnectorException {
        if (borrowed.isEmpty() && !exists()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG203, "the target table " + table
                    + " does not exist", "load the stream first (sluice run), or check the stream's target");
        }
        List<String> own = primaryKeyOf(table);
        return own.isEmpty() && !keyTable.equals(table) ? primaryKeyOf(keyTable) : own;
    }

    private boolean exists() throws ConnectorException {
        String what = "looking up " + table;
        Connection c = open(what);
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, what);
        } finally {
            release(c);
        }
    }

    private List<String> primaryKeyOf(String relation) throws ConnectorException {
        String sql = "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                + "AND a.attnum = ANY (i.indkey) WHERE i.indrelid = to_regclass(?) AND i.indisprimary "
                + "ORDER BY array_position(i.indkey::int2[], a.attnum)";
        Connection c = open("the primary key of " + relation);
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, relation);
            List<String> names = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the primary key of "
                    + relation);
        } finally {
            release(c);
        }
    }

    @Override
    public java.util.Set<RowHash> hashes() {
        return java.util.EnumSet.allOf(RowHash.class);
    }

    @Override
    public Digest digest(List<Column> columns, Optional<String> predicate, Digest.Level level, RowHash hash)
            throws ConnectorException {
        String what = "the digest of " + table;
        Connection c = open(what, predicate);
        try {
            return DigestQuery.run(c, DigestQuery.tableSql(table, columns, predicate, level, hash), level);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "computing " + what
                    + predicate.map(p -> " where " + p).orElse(""));
        } finally {
            release(c);
        }
    }

    @Override
    public HashedRows list(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns,
                           Buckets buckets, RowHash hash) throws ConnectorException {
        if (borrowed.isPresent()) {
            return HashedRowsQuery.ofTableOn(connections, borrowed.get(), table, ValueText.of(columns, hash), predicate,
                    keyColumns, buckets, hash);
        }
        String what = "the rows of " + table;
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        // The listing closes the connection when it is closed.
        return HashedRowsQuery.open(connections, open(what, predicate), HashedRowsQuery.tableListing(table,
                ValueText.of(columns, hash), predicate, keyColumns, buckets, hash), keyCount, columns.size(), what);
    }

    @Override
    public List<Digest> bucketDigests(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns,
                                      int count, RowHash hash) throws ConnectorException {
        String what = "the bucket digests of " + table;
        Connection c = open(what, predicate);
        try {
            return HashedRowsQuery.bucketsOfTableOn(c, table, ValueText.of(columns, hash), predicate, keyColumns, count,
                    hash);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "computing " + what);
        } finally {
            release(c);
        }
    }

    /** {@link #open(String)} for a statement that reads one partition: its scans narrowed to the predicate. */
    private Connection open(String what, Optional<String> predicate) throws ConnectorException {
        Connection c = open(what);
        // a load's transaction goes on with other statements; a partition that is the whole table reads it whole
        if (predicate.isPresent() && !predicate.get().equalsIgnoreCase("true") && borrowed.isEmpty()) {
            try {
                DigestQuery.narrowScans(c);
            } catch (SQLException e) {
                release(c);
                throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, what);
            }
        }
        return c;
    }

    /**
     * The connection a statement runs on: the borrowed one, or one of its own under the digest settings, in the pinned
     * snapshot when there is one; {@link #release} gives it back.
     */
    private Connection open(String what) throws ConnectorException {
        if (borrowed.isPresent()) {
            return borrowed.get();
        }
        Connection c = connections.open(what);
        try {
            DigestQuery.prepare(c);
            if (pin.isPresent()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                c.setReadOnly(true);
                try (Statement s = c.createStatement()) {
                    s.execute("SET TRANSACTION SNAPSHOT " + SqlQuote.literal(pin.get().snapshot()));
                }
            }
            return c;
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(c);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, what);
        }
    }

    private void release(Connection c) {
        if (borrowed.isEmpty()) {
            PostgresConnections.closeQuietly(c);
        }
    }
}
