package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.HashedRow;
import io.sluice.spi.HashedRows;
import io.sluice.spi.error.ConnectorException;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL and the cursor of {@code sluice compare}'s row listing: each key value's text (or the whole row's text for
 * a table without a key), then a {@code hashtextextended} of each value's text, as {@link DigestQuery} renders them
 * under its settings; ordered by the key texts in {@code COLLATE "C"} (code point order on UTF-8), the order both
 * sides agree on whatever their collations. Read through a cursor, a batch at a time.
 */
public final class HashedRowsQuery {
    private static final int FETCH_ROWS = 10_000;

    private HashedRowsQuery() {
    }

    /** The select list and ORDER BY over {@code expressions}, {@code keyColumns} naming the key's positions. */
    static String selectList(List<String> expressions, List<Integer> keyColumns) {
        List<String> select = new ArrayList<>(keys(expressions, keyColumns));
        expressions.forEach(e -> select.add("hashtextextended((" + e + ")::text, 0)"));
        return String.join(", ", select);
    }

    static String orderBy(List<String> expressions, List<Integer> keyColumns) {
        return " ORDER BY " + String.join(", ", keys(expressions, keyColumns).stream()
                .map(k -> k + " COLLATE \"C\"").toList());
    }

    /** The key's texts: each key column's, or the whole row's for a table without a key. */
    private static List<String> keys(List<String> expressions, List<Integer> keyColumns) {
        return keyColumns.isEmpty() ? List.of("ROW(" + String.join(", ", expressions) + ")::text")
                : keyColumns.stream().map(i -> "(" + expressions.get(i) + ")::text").toList();
    }

    /**
     * Runs {@code sql} on {@code connection} (in a transaction, for the cursor) and streams its rows; closing the
     * result ends the transaction and closes the connection.
     */
    static HashedRows open(PostgresConnections connections, Connection connection, String sql, int keyCount,
                           int columnCount, String what) throws ConnectorException {
        Statement statement = null;
        try {
            connection.setAutoCommit(false);
            statement = connection.createStatement();
            statement.setFetchSize(FETCH_ROWS);
            ResultSet rows = statement.executeQuery(sql);
            return new Cursor(connections, connection, statement, rows, keyCount, columnCount, what);
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(connection);
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "listing " + what);
        }
    }

    private static final class Cursor implements HashedRows {
        private final PostgresConnections connections;
        private final Connection connection;
        private final Statement statement;
        private final ResultSet rows;
        private final int keyCount;
        private final int columnCount;
        private final String what;

        Cursor(PostgresConnections connections, Connection connection, Statement statement, ResultSet rows,
               int keyCount, int columnCount, String what) {
            this.connections = connections;
            this.connection = connection;
            this.statement = statement;
            this.rows = rows;
            this.keyCount = keyCount;
            this.columnCount = columnCount;
            this.what = what;
        }

        @Override
        public HashedRow next() throws ConnectorException {
            try {
                if (!rows.next()) {
                    return null;
                }
                List<String> key = new ArrayList<>(keyCount);
                for (int i = 1; i <= keyCount; i++) {
                    key.add(rows.getString(i));
                }
                List<Long> hashes = new ArrayList<>(columnCount);
                for (int i = keyCount + 1; i <= keyCount + columnCount; i++) {
                    long hash = rows.getLong(i);
                    hashes.add(rows.wasNull() ? null : hash);
                }
                return new HashedRow(key, hashes);
            } catch (SQLException e) {
                throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "listing " + what);
            }
        }

        @Override
        public void close() {
            try {
                statement.cancel(); // a cursor closed early must not make the server send the rest
            } catch (SQLException ignored) {
                // the connection is closed next anyway
            }
            PostgresConnections.closeQuietly(connection);
        }
    }

    /** Lists {@code table}'s rows over {@code columns} (quoted names), with {@code predicate} when given. */
    public static HashedRows ofTable(PostgresConnections connections, String table, List<String> columns,
                                     java.util.Optional<String> predicate, List<Integer> keyColumns)
            throws ConnectorException {
        String sql = "SELECT " + selectList(columns, keyColumns) + " FROM " + table
                + predicate.map(p -> " WHERE (" + p + ")").orElse("") + orderBy(columns, keyColumns);
        String what = "the rows of " + table;
        Connection connection = connections.open(what);
        try {
            DigestQuery.prepare(connection);
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(connection);
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "listing " + what);
        }
        return open(connections, connection, sql, keyColumns.isEmpty() ? 1 : keyColumns.size(), columns.size(),
                what);
    }
}
