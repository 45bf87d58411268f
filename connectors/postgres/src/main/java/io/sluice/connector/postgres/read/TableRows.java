package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.Buckets;
import io.sluice.spi.Column;
import io.sluice.spi.Digest;
import io.sluice.spi.HashedRows;
import io.sluice.spi.TargetRows;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A target table's rows for {@code sluice compare} and {@code verify: compare}: digests, rows listed, and the primary
 * key they are listed by. Read on connections of their own, or, for a load not yet committed, on the load's own
 * connection in its transaction ({@link #inTransaction}), one query after another.
 *
 * @param table    the table read (quoted)
 * @param keyTable the table whose primary key lists the rows when {@code table} has none yet (a shadow before its
 *                 swap takes the key of the table it replaces)
 * @param borrowed the open transaction's connection, when the rows are read there
 */
public record TableRows(PostgresConnections connections, String table, String keyTable,
                        Optional<Connection> borrowed) implements TargetRows {
    public TableRows {
        requireNonNull(connections, "connections is null");
        requireNonNull(table, "table is null");
        requireNonNull(keyTable, "keyTable is null");
        requireNonNull(borrowed, "borrowed is null");
    }

    /** The rows of {@code table} as committed. */
    public static TableRows of(PostgresConnections connections, String table) {
        return new TableRows(connections, table, table, Optional.empty());
    }

    /** The rows of a new table that will replace {@code live}, keyed as {@code live} is until it has a key itself. */
    public static TableRows staged(PostgresConnections connections, String table, String live) {
        return new TableRows(connections, table, live, Optional.empty());
    }

    /**
     * The rows of {@code table} as the open transaction on {@code connection} sees them; sets the digest settings for
     * the rest of the transaction (SET LOCAL), so the load's session is as it was after the commit.
     */
    public static TableRows inTransaction(PostgresConnections connections, Connection connection, String table,
                                          String keyTable) throws SQLException {
        DigestQuery.prepareLocal(connection);
        return new TableRows(connections, table, keyTable, Optional.of(connection));
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
        try (Connection c = connections.open("looking up " + table);
             PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "looking up " + table);
        }
    }

    private List<String> primaryKeyOf(String relation) throws ConnectorException {
        String sql = "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                + "AND a.attnum = ANY (i.indkey) WHERE i.indrelid = to_regclass(?) AND i.indisprimary "
                + "ORDER BY array_position(i.indkey::int2[], a.attnum)";
        Connection c = borrowed.isPresent() ? borrowed.get() : connections.open("the primary key of " + relation);
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
            if (borrowed.isEmpty()) {
                PostgresConnections.closeQuietly(c);
            }
        }
    }

    @Override
    public Digest digest(List<Column> columns, Optional<String> predicate, Digest.Level level)
            throws ConnectorException {
        if (borrowed.isEmpty()) {
            return DigestQuery.ofTable(connections, table, columns, predicate, level);
        }
        try {
            return DigestQuery.run(borrowed.get(), DigestQuery.tableSql(table, columns, predicate, level), level);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "computing the digest of " + table);
        }
    }

    @Override
    public HashedRows list(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns,
                           Buckets buckets) throws ConnectorException {
        return borrowed.isEmpty() ? HashedRowsQuery.ofTable(connections, table, quoted(columns), predicate, keyColumns,
                buckets) : HashedRowsQuery.ofTableOn(connections, borrowed.get(), table, quoted(columns), predicate,
                keyColumns, buckets);
    }

    @Override
    public List<Digest> bucketDigests(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns,
                                      int count) throws ConnectorException {
        if (borrowed.isEmpty()) {
            return HashedRowsQuery.bucketsOfTable(connections, table, quoted(columns), predicate, keyColumns, count);
        }
        try {
            return HashedRowsQuery.bucketsOfTableOn(borrowed.get(), table, quoted(columns), predicate, keyColumns,
                    count);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "computing the bucket digests of "
                    + table);
        }
    }

    private static List<String> quoted(List<Column> columns) {
        return columns.stream().map(c -> SqlQuote.identifier(c.name())).toList();
    }
}
