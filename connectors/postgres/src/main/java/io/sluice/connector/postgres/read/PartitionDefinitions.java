package io.sluice.connector.postgres.read;

import io.sluice.spi.data.TableDefinition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A partitioned source table's partition key and partitions ({@link SourceDefinitions}): each partition's bound, its
 * own partition key when it is partitioned too, and the NOT NULL constraints it names otherwise than its parent.
 */
final class PartitionDefinitions {
    private PartitionDefinitions() {
    }

    /** A partitioned table's {@code PARTITION BY} clause, as the server prints it. */
    static Optional<String> key(Connection connection, long oid) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT pg_get_partkeydef(?)")) {
            p.setLong(1, oid);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return Optional.ofNullable(rs.getString(1));
            }
        }
    }

    /** Every partition of table {@code oid}, sub-partitions after their parents. */
    static List<TableDefinition.Partition> read(Connection connection, long oid) throws SQLException {
        String sql = "WITH RECURSIVE p(oid, parent, depth) AS (SELECT inhrelid, inhparent, 1 FROM pg_inherits "
                + "WHERE inhparent = ? UNION ALL SELECT i.inhrelid, i.inhparent, p.depth + 1 FROM pg_inherits i "
                + "JOIN p ON i.inhparent = p.oid) "
                + "SELECT c.relname, CASE WHEN p.depth > 1 THEN (SELECT relname FROM pg_class WHERE oid = p.parent) "
                + "END, pg_get_expr(c.relpartbound, c.oid), CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) "
                + "END, "
                // the partition's NOT NULL constraints named otherwise than its parent's (PostgreSQL 18)
                + "ARRAY(SELECT ARRAY[a.attname::text, k.conname::text] FROM pg_constraint k JOIN pg_attribute a "
                + "ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1] WHERE k.conrelid = c.oid AND k.contype = 'n' "
                + "AND NOT EXISTS (SELECT 1 FROM pg_constraint pk JOIN pg_attribute pa ON pa.attrelid = pk.conrelid "
                + "AND pa.attnum = pk.conkey[1] WHERE pk.conrelid = p.parent AND pk.contype = 'n' "
                + "AND pa.attname = a.attname AND pk.conname = k.conname) ORDER BY a.attnum) "
                + "FROM p JOIN pg_class c ON c.oid = p.oid WHERE c.relispartition ORDER BY p.depth, c.relname";
        List<TableDefinition.Partition> partitions = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, oid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    Map<String, String> notNullNames = new LinkedHashMap<>();
                    for (Object pair : (Object[]) rs.getArray(5).getArray()) {
                        notNullNames.put(((String[]) pair)[0], ((String[]) pair)[1]);
                    }
                    partitions.add(new TableDefinition.Partition(rs.getString(1), Optional.ofNullable(rs.getString(2)),
                            rs.getString(3), Optional.ofNullable(rs.getString(4)), notNullNames));
                }
            }
        }
        return partitions;
    }
}
