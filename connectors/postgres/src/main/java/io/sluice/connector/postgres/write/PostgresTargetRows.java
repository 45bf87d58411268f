package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.read.HashedRowsQuery;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.Buckets;
import io.sluice.spi.Column;
import io.sluice.spi.Digest;
import io.sluice.spi.HashedRows;
import io.sluice.spi.TargetRows;
import io.sluice.spi.error.ConnectorException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A target table's rows listed for {@code sluice compare}, and the primary key they are listed by. */
record PostgresTargetRows(PostgresConnections connections, String table) implements TargetRows {
    PostgresTargetRows {
        requireNonNull(connections, "connections is null");
        requireNonNull(table, "table is null");
    }

    @Override
    public List<String> primaryKey() throws ConnectorException {
        String sql = "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                + "AND a.attnum = ANY (i.indkey) WHERE i.indrelid = to_regclass(?) AND i.indisprimary "
                + "ORDER BY array_position(i.indkey::int2[], a.attnum)";
        try (Connection c = connections.open("the primary key of " + table);
             PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, table);
            List<String> names = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "reading the primary key of " + table);
        }
    }

    @Override
    public HashedRows list(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns,
                           Buckets buckets) throws ConnectorException {
        return HashedRowsQuery.ofTable(connections, table, quoted(columns), predicate, keyColumns, buckets);
    }

    @Override
    public List<Digest> bucketDigests(List<Column> columns, Optional<String> predicate, List<Integer> keyColumns,
                                      int count) throws ConnectorException {
        return HashedRowsQuery.bucketsOfTable(connections, table, quoted(columns), predicate, keyColumns, count);
    }

    private static List<String> quoted(List<Column> columns) {
        return columns.stream().map(c -> SqlQuote.identifier(c.name())).toList();
    }
}
