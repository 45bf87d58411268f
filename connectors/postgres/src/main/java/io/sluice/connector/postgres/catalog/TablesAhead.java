package io.sluice.connector.postgres.catalog;

import io.sluice.spi.data.Column;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What planning asks of each table, read for many tables at once: a pattern of a thousand tables asked a dozen
 * round trips per table (the table, a privilege, its columns, its indexes, its owner), and each is one query here,
 * whatever the number of tables. Read just before those tables are planned; each planned table takes its entry once,
 * so nothing read here stands in for a read during the run.
 */
public final class TablesAhead {
    private TablesAhead() {
    }

    /**
     * One table as read ahead: found (or not), whether the user holds the privilege asked on the whole table and is
     * a member of its owner's role, whether it or one of its partitions has a foreign key, and its columns in table order.
     */
    public record Table(Optional<ResolvedTable> table, boolean granted, boolean ownedByUser, boolean hasForeignKeys,
                        List<Column> columns) {
        public Table {
            requireNonNull(table, "table is null");
            columns = List.copyOf(requireNonNull(columns, "columns is null"));
        }

        /** A name no table has. */
        static final Table MISSING = new Table(Optional.empty(), false, false, false, List.of());
    }

    /** {@code names} as {@link PostgresCatalog#resolveTable} resolves each, with the rest of {@link Table}. */
    public static Map<QualifiedName, Table> tables(Connection c, List<QualifiedName> names, String privilege)
            throws SQLException {
        requireNonNull(names, "names is null");
        requireNonNull(privilege, "privilege is null");
        Map<QualifiedName, ResolvedTable> found = new LinkedHashMap<>();
        Map<Long, boolean[]> facts = new HashMap<>();
        try (PreparedStatement p = c.prepareStatement("SELECT t.ord, c.oid, n.nspname, c.relname, c.relkind, "
                + "has_table_privilege(c.oid, ?), pg_has_role(current_user, c.relowner, 'MEMBER'), "
                + "EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND (f.conrelid = c.oid "
                + "OR c.relkind = 'p' AND f.conrelid IN (SELECT relid FROM pg_partition_tree(c.oid)))) "
                + "FROM unnest(?::text[]) WITH ORDINALITY t(name, ord) "
                + "JOIN pg_class c ON c.oid = to_regclass(t.name) JOIN pg_namespace n ON n.oid = c.relnamespace")) {
            p.setString(1, privilege);
            p.setArray(2, c.createArrayOf("text", names.stream().map(QualifiedName::quoted).toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    ResolvedTable table = new ResolvedTable(rs.getLong(2), rs.getString(3), rs.getString(4),
                            rs.getString(5).charAt(0));
                    found.put(names.get(rs.getInt(1) - 1), table);
                    facts.put(table.oid(), new boolean[] {rs.getBoolean(6), rs.getBoolean(7), rs.getBoolean(8)});
                }
            }
        }
        Map<Long, List<Column>> columns = new PostgresCatalog(c).columns(found.values().stream()
                .map(ResolvedTable::oid).toList());
        Map<QualifiedName, Table> tables = new LinkedHashMap<>();
        for (QualifiedName name : names) {
            ResolvedTable table = found.get(name);
            if (table == null) {
                tables.put(name, Table.MISSING);
                continue;
            }
            boolean[] f = facts.get(table.oid());
            tables.put(name, new Table(Optional.of(table), f[0], f[1], f[2], columns.getOrDefault(table.oid(),
                    List.of())));
        }
        return tables;
    }

    /** The names of every relation of {@code schema} (empty when the schema is missing), and whether it exists. */
    public record SchemaNames(boolean exists, java.util.Set<String> relations) {
        public SchemaNames {
            relations = java.util.Set.copyOf(requireNonNull(relations, "relations is null"));
        }
    }

    public static SchemaNames schemaNames(Connection c, String schema) throws SQLException {
        requireNonNull(schema, "schema is null");
        boolean exists;
        List<String> relations = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT n.oid IS NOT NULL, ARRAY(SELECT r.relname FROM "
                + "pg_class r WHERE r.relnamespace = n.oid) FROM (SELECT 1) one LEFT JOIN pg_namespace n "
                + "ON n.nspname = ?")) {
            p.setString(1, schema);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                exists = rs.getBoolean(1);
                Array names = rs.getArray(2);
                if (names != null) {
                    for (Object name : (Object[]) names.getArray()) {
                        relations.add((String) name);
                    }
                }
            }
        }
        return new SchemaNames(exists, new java.util.HashSet<>(relations));
    }
}
