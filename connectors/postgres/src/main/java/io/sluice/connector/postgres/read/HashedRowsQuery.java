package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRow;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SourceRows;
import io.sluice.toolkit.compare.ResultSetRows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL and the cursor of {@code sluice compare}'s row listing: each key value's text (or the whole row's text for
 * a table without a key), then a {@link RowHashSql#value} of each value's text, as {@link DigestQuery} renders them
 * under its settings; ordered by the key texts in {@code COLLATE "C"} (code point order on UTF-8), the order both
 * sides agree on whatever their collations. Read through a cursor, a batch at a time.
 */
public final class HashedRowsQuery {
    private static final int FETCH_ROWS = 10_000;

    private HashedRowsQuery() {
    }

    /**
     * The inner select list over {@code expressions}: the key texts {@code k1..}, the column hashes {@code h1..}, the
     * row's digest hash {@code d} (as {@link DigestQuery} sums it) and its bucket {@code b} among {@code buckets}.
     */
    static String innerList(List<String> expressions, List<Integer> keyColumns, int buckets, RowHash hash) {
        List<String> keys = keys(expressions, keyColumns, hash);
        List<String> select = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            select.add(keys.get(i) + " AS k" + (i + 1));
        }
        for (int i = 0; i < expressions.size(); i++) {
            select.add(RowHashSql.value(hash, expressions.get(i)) + " AS h" + (i + 1));
        }
        select.add(RowHashSql.row(hash, expressions) + " AS d");
        select.add(RowHashSql.bucket(hash, keyColumns.isEmpty() ? expressions
                : keyColumns.stream().map(expressions::get).toList(), buckets) + " AS b");
        return String.join(", ", select);
    }

    /** The listing over {@code inner} (a query of {@link #innerList}): the rows of the chosen buckets, in order. */
    static String listing(String inner, int keyCount, int columnCount, Buckets buckets) {
        List<String> out = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 1; i <= keyCount; i++) {
            out.add("k" + i);
            order.add("k" + i + " COLLATE \"C\"");
        }
        for (int i = 1; i <= columnCount; i++) {
            out.add("h" + i);
        }
        return "SELECT " + String.join(", ", out) + " FROM (" + inner + ") AS r"
                + (buckets.all() ? "" : " WHERE b IN (" + String.join(", ", buckets.chosen().stream()
                .map(String::valueOf).toList()) + ")") + " ORDER BY " + String.join(", ", order);
    }

    /** Each bucket's count and checksum over {@code inner} (a query of {@link #innerList}), in one pass. */
    static String bucketDigests(String inner) {
        return "SELECT b, count(*), coalesce(sum(d), 0)::text FROM (" + inner + ") AS r GROUP BY b";
    }

    /** The key's texts: each key column's, or the whole row's for a table without a key. */
    private static List<String> keys(List<String> expressions, List<Integer> keyColumns, RowHash hash) {
        return keyColumns.isEmpty() ? List.of(RowHashSql.wholeRow(hash, expressions))
                : keyColumns.stream().map(i -> "(" + expressions.get(i) + ")::text").toList();
    }

    /** Runs {@code sql} (of {@link #bucketDigests}) on {@code connection}: {@code count} digests, empty ones zero. */
    static List<Digest> readBucketDigests(Connection connection, String sql, int count) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return ResultSetRows.bucketDigests(rs, count);
        }
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
            return new Cursor(connections, connection, statement, rows, keyCount, columnCount, what, false);
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
        /** The connection is an open load's, which goes on after the listing. */
        private final boolean borrowed;

        Cursor(PostgresConnections connections, Connection connection, Statement statement, ResultSet rows,
               int keyCount, int columnCount, String what, boolean borrowed) {
            this.borrowed = borrowed;
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
                return ResultSetRows.row(rows, keyCount, columnCount);
            } catch (SQLException e) {
                throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "listing " + what);
            }
        }

        @Override
        public void close() {
            if (borrowed) {
                // no cancel: on a connection that goes on, a late cancel request could hit its next statement
                try {
                    statement.close();
                } catch (SQLException ignored) {
                    // the load's commit or rollback says what became of its transaction
                }
                return;
            }
            try {
                statement.cancel(); // a cursor closed early must not make the server send the rest
            } catch (SQLException ignored) {
                // the connection is closed next anyway
            }
            PostgresConnections.closeQuietly(connection);
        }
    }

    /** The listing of {@code table}'s rows over {@code columns} (quoted names), with {@code predicate} when given. */
    static String tableListing(String table, List<String> columns, java.util.Optional<String> predicate,
                               List<Integer> keyColumns, Buckets buckets, RowHash hash) {
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        return listing(tableQuery(table, columns, predicate, keyColumns, buckets.count(), hash), keyCount,
                columns.size(), buckets);
    }

    /** {@link #tableListing} run on an open transaction's {@code connection}, which stays open after the listing. */
    static HashedRows ofTableOn(PostgresConnections connections, Connection connection, String table,
                                List<String> columns, java.util.Optional<String> predicate, List<Integer> keyColumns,
                                Buckets buckets, RowHash hash) throws ConnectorException {
        String what = "the rows of " + table;
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        String sql = tableListing(table, columns, predicate, keyColumns, buckets, hash);
        try {
            Statement statement = connection.createStatement();
            statement.setFetchSize(FETCH_ROWS);
            return new Cursor(connections, connection, statement, statement.executeQuery(sql), keyCount,
                    columns.size(), what, true);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "listing " + what);
        }
    }

    /** {@link SourceRows#bucketDigests} of {@code table}'s rows, on {@code connection}. */
    static List<Digest> bucketsOfTableOn(Connection connection, String table, List<String> columns,
                                         java.util.Optional<String> predicate, List<Integer> keyColumns, int count,
                                         RowHash hash) throws SQLException {
        return readBucketDigests(connection, bucketDigests(tableQuery(table, columns, predicate, keyColumns, count,
                hash)), count);
    }

    private static String tableQuery(String table, List<String> columns, java.util.Optional<String> predicate,
                                     List<Integer> keyColumns, int buckets, RowHash hash) {
        return "SELECT " + innerList(columns, keyColumns, buckets, hash) + " FROM " + table
                + predicate.map(p -> " WHERE (" + p + ")").orElse("");
    }
}
