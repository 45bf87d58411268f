package io.sluice.connector.postgres.catalog;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** What a load needs to know of its target table beyond its columns: indexes, dependents, sequences, grants. */
public final class TargetCatalog {
    private final Connection connection;

    public TargetCatalog(Connection connection) {
        this.connection = requireNonNull(connection, "connection is null");
    }

    /** Whether {@code quoted} (a table, quoted) holds a row: one page read. */
    public boolean hasRows(String quoted) throws java.sql.SQLException {
        try (java.sql.Statement s = connection.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + quoted + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** The table's indexes by name, each with the constraint it backs. */
    public List<IndexDefinition> indexes(long tableOid) throws SQLException {
        return indexes(List.of(tableOid)).getOrDefault(tableOid, List.of());
    }

    /** {@link #indexes(long)} of several tables in one round trip, by table OID. */
    public java.util.Map<Long, List<IndexDefinition>> indexes(List<Long> tableOids) throws SQLException {
        String sql = "SELECT i.relname, pg_get_indexdef(x.indexrelid), c.conname, c.contype, "
                + "pg_get_constraintdef(c.oid), "
                + "EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = x.indexrelid), "
                + "x.indisunique AND x.indpred IS NULL AND x.indexprs IS NULL AND x.indimmediate, "
                + "ARRAY(SELECT a.attname FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n) "
                + "JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n), "
                + "x.indexprs IS NULL, quote_ident(n.nspname) || '.' || quote_ident(t.relname), x.indrelid "
                + "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
                + "JOIN pg_namespace n ON n.oid = t.relnamespace "
                + "LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid "
                + "AND c.contype IN ('p', 'u', 'x') WHERE x.indrelid = ANY (?::oid[]) ORDER BY x.indrelid, i.relname";
        java.util.Map<Long, List<IndexDefinition>> indexes = new java.util.HashMap<>();
        if (tableOids.isEmpty()) {
            return indexes;
        }
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setArray(1, connection.createArrayOf("int8", tableOids.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String definition = rs.getString(2);
                    String table = rs.getString(10);
                    int on = definition.indexOf(" " + table + " USING ");
                    if (on < 0) {
                        throw new SQLException("cannot read the definition of index " + rs.getString(1) + ": "
                                + definition);
                    }
                    Optional<IndexDefinition.Constraint> constraint = rs.getString(3) == null ? Optional.empty()
                            : Optional.of(new IndexDefinition.Constraint(rs.getString(3), rs.getString(4).charAt(0),
                            rs.getString(5)));
                    indexes.computeIfAbsent(rs.getLong(11), k -> new ArrayList<>()).add(new IndexDefinition(
                            rs.getString(1), definition, definition.substring(on + table.length() + 2), constraint,
                            rs.getBoolean(9) ? strings(rs.getArray(8)) : List.of(), rs.getBoolean(7),
                            rs.getBoolean(6)));
                }
            }
        }
        return indexes;
    }

    /** Whether a relation of that name exists in the schema. */
    public boolean relationExists(String schema, String name) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT 1 FROM pg_class c JOIN pg_namespace n "
                + "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            p.setString(1, schema);
            p.setString(2, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Whether the table (quoted) has a constraint of that name. */
    public boolean hasConstraint(String table, String name) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT 1 FROM pg_constraint "
                + "WHERE conrelid = to_regclass(?) AND conname = ?")) {
            p.setString(1, table);
            p.setString(2, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * What a swap by rename could not carry, one line each: views and rules that read the table, foreign keys that
     * point at it, triggers, row security policies, publications, inheritance and partitioning. Those objects follow
     * the table's OID, so they would stay with the old table or block its drop.
     */
    public List<String> replaceBlockers(long tableOid) throws SQLException {
        String sql = "SELECT 'view or rule ' || r.ev_class::regclass::text FROM pg_depend d "
                + "JOIN pg_rewrite r ON r.oid = d.objid WHERE d.classid = 'pg_rewrite'::regclass "
                + "AND d.refclassid = 'pg_class'::regclass AND d.refobjid = ? AND r.ev_class <> d.refobjid "
                + "UNION SELECT 'foreign key ' || quote_ident(conname) || ' of ' || conrelid::regclass::text "
                + "FROM pg_constraint WHERE contype = 'f' AND confrelid = ? AND conrelid <> confrelid "
                + "UNION SELECT 'trigger ' || quote_ident(tgname) FROM pg_trigger WHERE tgrelid = ? AND NOT tgisinternal "
                + "UNION SELECT 'row security policy ' || quote_ident(polname) FROM pg_policy WHERE polrelid = ? "
                + "UNION SELECT 'publication ' || quote_ident(p.pubname) FROM pg_publication_rel pr "
                + "JOIN pg_publication p ON p.oid = pr.prpubid WHERE pr.prrelid = ? "
                + "UNION SELECT 'inheritance with ' || inhrelid::regclass::text FROM pg_inherits WHERE inhparent = ? "
                + "UNION SELECT 'inheritance from ' || inhparent::regclass::text FROM pg_inherits WHERE inhrelid = ? "
                // What uses the table's row type would block its drop (or follow the old table) at the swap.
                + "UNION SELECT 'column ' || a.attrelid::regclass::text || '.' || quote_ident(a.attname) || ' (of the "
                + "table''s row type)' FROM pg_attribute a JOIN pg_class c ON a.atttypid IN (c.reltype, (SELECT "
                + "typarray FROM pg_type WHERE oid = c.reltype)) WHERE c.oid = ? AND a.attrelid <> c.oid "
                + "AND NOT a.attisdropped "
                + "UNION SELECT 'function ' || d.objid::regprocedure::text || ' (uses the table''s row type)' "
                + "FROM pg_depend d JOIN pg_class c ON d.refobjid = c.reltype WHERE c.oid = ? "
                + "AND d.classid = 'pg_proc'::regclass "
                + "ORDER BY 1";
        List<String> blockers = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            for (int i = 1; i <= 9; i++) {
                p.setLong(i, tableOid);
            }
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    blockers.add(rs.getString(1));
                }
            }
        }
        return blockers;
    }

    /**
     * Statements that give {@code onTable} (quoted, a new copy of the table) what {@code CREATE TABLE ... LIKE} does not
     * carry: row-level security enabled and forced, and per-column statistics targets and options ({@code n_distinct}).
     */
    public List<String> tableSettings(long tableOid, String onTable) throws SQLException {
        List<String> statements = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement("SELECT relrowsecurity, relforcerowsecurity FROM "
                + "pg_class WHERE oid = ?")) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    statements.add("ALTER TABLE " + onTable + " ENABLE ROW LEVEL SECURITY");
                }
                if (rs.getRow() > 0 && rs.getBoolean(2)) {
                    statements.add("ALTER TABLE " + onTable + " FORCE ROW LEVEL SECURITY");
                }
            }
        }
        // attstattarget is -1 for the default before PostgreSQL 17, NULL from 17 on.
        try (PreparedStatement p = connection.prepareStatement("SELECT quote_ident(attname), "
                + "CASE WHEN attstattarget >= 0 THEN attstattarget::int END, array_to_string(attoptions, ', ') "
                + "FROM pg_attribute WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped "
                + "AND (attstattarget >= 0 OR attoptions IS NOT NULL) ORDER BY attnum")) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String column = onTable + " ALTER COLUMN " + rs.getString(1);
                    if (rs.getObject(2) != null) {
                        statements.add("ALTER TABLE " + column + " SET STATISTICS " + rs.getInt(2));
                    }
                    if (rs.getString(3) != null && !rs.getString(3).isEmpty()) {
                        statements.add("ALTER TABLE " + column + " SET (" + rs.getString(3) + ")");
                    }
                }
            }
        }
        return statements;
    }

    /**
     * Statements that give {@code onTable} (quoted; its indexes and constraints by the same names as the table's)
     * what belongs to the table's indexes and constraints: their comments, the replica identity index and the
     * clustering index. Read before the old table goes, run on the new one once the names are its.
     */
    public List<String> indexSettings(long tableOid, String onTable, String schema) throws SQLException {
        List<String> statements = new ArrayList<>();
        String sql = "SELECT quote_ident(i.relname), obj_description(i.oid, 'pg_class'), x.indisreplident, "
                + "x.indisclustered FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = ? "
                + "ORDER BY 1";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String index = SqlQuote.identifier(schema) + "." + rs.getString(1);
                    if (rs.getString(2) != null) {
                        statements.add("COMMENT ON INDEX " + index + " IS " + SqlQuote.literal(rs.getString(2)));
                    }
                    if (rs.getBoolean(3)) {
                        statements.add("ALTER TABLE " + onTable + " REPLICA IDENTITY USING INDEX " + rs.getString(1));
                    }
                    if (rs.getBoolean(4)) {
                        statements.add("ALTER TABLE " + onTable + " CLUSTER ON " + rs.getString(1));
                    }
                }
            }
        }
        try (PreparedStatement p = connection.prepareStatement("SELECT quote_ident(conname), "
                + "obj_description(oid, 'pg_constraint') FROM pg_constraint WHERE conrelid = ? "
                + "AND contype IN ('p', 'u', 'x', 'f') AND obj_description(oid, 'pg_constraint') IS NOT NULL "
                + "ORDER BY 1")) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    statements.add("COMMENT ON CONSTRAINT " + rs.getString(1) + " ON " + onTable + " IS "
                            + SqlQuote.literal(rs.getString(2)));
                }
            }
        }
        return statements;
    }

    /** The table's columns as {@code name type [not null]}, in order: what a copy of it must have. */
    public List<String> columnDefinitions(long tableOid) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement("SELECT quote_ident(attname) || ' ' || "
                + "format_type(atttypid, atttypmod) || CASE WHEN attnotnull THEN ' not null' ELSE '' END "
                + "FROM pg_attribute WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    columns.add(rs.getString(1));
                }
            }
        }
        return columns;
    }

    /** A sequence that fills a column of the table: serial ('a', auto) or identity ('i', internal). */
    public record OwnedSequence(String sequence, String column, char dependency) {
    }

    public List<OwnedSequence> ownedSequences(long tableOid) throws SQLException {
        String sql = "SELECT d.objid::regclass::text, a.attname, d.deptype FROM pg_depend d "
                + "JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
                + "JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid "
                + "WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass "
                + "AND d.refobjid = ? AND d.deptype IN ('a', 'i') ORDER BY a.attnum";
        List<OwnedSequence> sequences = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    sequences.add(new OwnedSequence(rs.getString(1), rs.getString(2), rs.getString(3).charAt(0)));
                }
            }
        }
        return sequences;
    }

    /**
     * What a load resets after the last partition, in one look-up: the table's own sequences, then the sequences
     * the column defaults draw from ({@code nextval}) that no column of the table owns (a sequence created on its own,
     * as pg_dump scripts and Pagila make them), once with each column whose default uses it (dependency {@code 'n'}):
     * moved past each column's values, never back, a sequence ends past all of them.
     */
    public List<OwnedSequence> sequencesToReset(String quotedTable) throws SQLException {
        String sql = "SELECT seq, col, dep FROM (SELECT d.objid::regclass::text AS seq, a.attname AS col, "
                + "d.deptype::text AS dep, 0 AS kind, a.attnum AS num FROM pg_depend d "
                + "JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
                + "JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid "
                + "WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass "
                + "AND d.refobjid = to_regclass(?) AND d.deptype IN ('a', 'i') "
                + "UNION ALL SELECT s.oid::regclass::text, a.attname, 'n', 1, a.attnum "
                + "FROM pg_attrdef ad JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid "
                + "AND d.refclassid = 'pg_class'::regclass JOIN pg_class s ON s.oid = d.refobjid AND s.relkind = 'S' "
                + "JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum "
                + "WHERE ad.adrelid = to_regclass(?) AND NOT EXISTS (SELECT 1 FROM pg_depend o "
                + "WHERE o.classid = 'pg_class'::regclass AND o.objid = s.oid AND o.refobjid = ad.adrelid "
                + "AND o.deptype IN ('a', 'i'))) x ORDER BY kind, num, seq";
        List<OwnedSequence> sequences = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, quotedTable);
            p.setString(2, quotedTable);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    sequences.add(new OwnedSequence(rs.getString(1), rs.getString(2), rs.getString(3).charAt(0)));
                }
            }
        }
        return sequences;
    }

    /** An outbound foreign key: its name and {@code pg_get_constraintdef}. */
    public record ForeignKey(String name, String definition) {
    }

    public List<ForeignKey> foreignKeys(long tableOid) throws SQLException {
        List<ForeignKey> keys = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement("SELECT conname, pg_get_constraintdef(oid) "
                + "FROM pg_constraint WHERE conrelid = ? AND contype = 'f' ORDER BY conname")) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    keys.add(new ForeignKey(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return keys;
    }

    /** The table's look beyond its columns: owner, persistence, storage options, tablespace, comment. */
    public record Look(String owner, boolean ownedByUser, boolean unlogged, List<String> options, Optional<String> tablespace,
                Optional<String> comment, char replicaIdentity) {
    }

    public Look look(long tableOid) throws SQLException {
        String sql = "SELECT pg_get_userbyid(c.relowner), pg_has_role(current_user, c.relowner, 'MEMBER'), "
                + "c.relpersistence = 'u', c.reloptions, t.spcname, obj_description(c.oid, 'pg_class'), "
                + "c.relreplident FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace "
                + "WHERE c.oid = ?";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("table " + tableOid + " disappeared");
                }
                return new Look(rs.getString(1), rs.getBoolean(2), rs.getBoolean(3),
                        rs.getArray(4) == null ? List.of() : strings(rs.getArray(4)),
                        Optional.ofNullable(rs.getString(5)), Optional.ofNullable(rs.getString(6)),
                        rs.getString(7).charAt(0));
            }
        }
    }

    /** GRANT statements that give {@code onTable} (quoted) the table's and its columns' privileges. */
    public List<String> grants(long tableOid, String onTable) throws SQLException {
        String sql = "SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' "
                + "ELSE quote_ident(pg_get_userbyid(a.grantee)) END, a.is_grantable, NULL::text "
                + "FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = ? AND a.grantee <> c.relowner "
                + "UNION ALL SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' "
                + "ELSE quote_ident(pg_get_userbyid(a.grantee)) END, a.is_grantable, quote_ident(t.attname) "
                + "FROM pg_attribute t, aclexplode(t.attacl) a WHERE t.attrelid = ? AND t.attacl IS NOT NULL";
        List<String> grants = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, tableOid);
            p.setLong(2, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    grants.add("GRANT " + rs.getString(1) + (rs.getString(4) == null ? "" : " (" + rs.getString(4)
                            + ")") + " ON " + onTable + " TO " + rs.getString(2)
                            + (rs.getBoolean(3) ? " WITH GRANT OPTION" : ""));
                }
            }
        }
        return grants;
    }

    /** A comment this process put on a table, e.g. the mark of a shadow table; empty when none. */
    public Optional<String> comment(String schema, String name) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT obj_description(c.oid, 'pg_class') "
                + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? "
                + "AND c.relname = ?")) {
            p.setString(1, schema);
            p.setString(2, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /** The schema an unqualified CREATE TABLE would use. */
    public String currentSchema() throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT current_schema()");
             ResultSet rs = p.executeQuery()) {
            if (!rs.next() || rs.getString(1) == null) {
                throw new SQLException("no schema on the search_path to create the table in");
            }
            return rs.getString(1);
        }
    }

    private static List<String> strings(Array array) throws SQLException {
        return Arrays.stream((Object[]) array.getArray()).map(String::valueOf).toList();
    }
}
