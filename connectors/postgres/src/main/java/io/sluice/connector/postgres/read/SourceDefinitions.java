package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.ResolvedTable;

import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.TableDefinition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads what defines a source table ({@link TableDefinition}) from its catalog, as pg_dump would: with an empty
 * search path, so every name the server prints (types, sequences, referenced tables, functions in defaults) comes
 * schema-qualified and means the same in the target database.
 */
public final class SourceDefinitions {
    /** An identity sequence takes its type from its column: its options leave AS out. */
    private static final String IDENTITY_OPTIONS = "'START WITH ' "
            + "|| q.seqstart || ' INCREMENT BY ' || q.seqincrement || ' MINVALUE ' || q.seqmin || ' MAXVALUE ' "
            + "|| q.seqmax || ' CACHE ' || q.seqcache || CASE WHEN q.seqcycle THEN ' CYCLE' ELSE ' NO CYCLE' END";
    static final String SEQUENCE_OPTIONS = "'AS ' || format_type(q.seqtypid, NULL) || ' ' || "
            + IDENTITY_OPTIONS;
    /** An array column needs its element type; everything else needs itself. */
    private static final String ELEMENT = "CASE WHEN %1$s.typcategory = 'A' AND %1$s.typelem <> 0 THEN %1$s.typelem "
            + "ELSE %1$s.oid END";
    // Scalar subqueries, not joins: planned in a fraction of the time (the join form spent 0.7 ms per table
    // planning, a server-side custom plan each time), and the identity look-up runs for identity columns only.
    private static final String IDENTITY_SEQUENCE = "FROM pg_depend dep JOIN pg_sequence q ON q.seqrelid = dep.objid "
            + "JOIN pg_class s ON s.oid = dep.objid WHERE dep.refclassid = 'pg_class'::regclass "
            + "AND dep.refobjid = a.attrelid AND dep.refobjsubid = a.attnum AND dep.deptype = 'i' "
            + "AND dep.classid = 'pg_class'::regclass";
    private static final String COLUMNS = "SELECT a.attname, (SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d "
            + "WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum), a.attidentity, a.attgenerated, "
            + "CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation "
            + "THEN (SELECT quote_ident(cn.nspname) || '.' || quote_ident(co.collname) FROM pg_collation co "
            + "JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = a.attcollation) END, "
            + "col_description(a.attrelid, a.attnum), "
            + "CASE WHEN a.attidentity <> '' THEN (SELECT " + IDENTITY_OPTIONS + " " + IDENTITY_SEQUENCE + ") END, "
            + "CASE WHEN a.attidentity <> '' THEN (SELECT s.relname " + IDENTITY_SEQUENCE + ") END, "
            + "a.atttypid >= " + PostgresCatalog.FIRST_NORMAL_OID + " OR t.typelem >= "
            + PostgresCatalog.FIRST_NORMAL_OID + ", "
            // The collation's own definition, as pg_dump writes it; the locale column's name changed with the
            // versions (collcollate, colliculocale in 15, colllocale in 17), so it is read through the row's JSON.
            + "CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation "
            + "THEN (SELECT 'CREATE COLLATION ' || quote_ident(cn.nspname) || '.' || quote_ident(co.collname) "
            + "|| ' (provider = ' || CASE co.collprovider WHEN 'i' THEN 'icu, locale = ' WHEN 'b' THEN 'builtin, "
            + "locale = ' ELSE 'libc, lc_collate = ' || quote_literal(co.collcollate) || ', lc_ctype = ' END "
            + "|| quote_literal(CASE WHEN co.collprovider IN ('i', 'b') THEN coalesce(to_jsonb(co) ->> 'colllocale', "
            + "to_jsonb(co) ->> 'colliculocale', co.collcollate) ELSE co.collctype END) "
            + "|| CASE WHEN co.collisdeterministic THEN '' ELSE ', deterministic = false' END || ')' "
            + "FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = a.attcollation) END, "
            // PostgreSQL 18 names NOT NULL constraints; one named otherwise than the server would is carried
            + "(SELECT k.conname FROM pg_constraint k WHERE k.conrelid = a.attrelid AND k.contype = 'n' "
            + "AND k.conkey[1] = a.attnum AND k.conname <> (SELECT r.relname FROM pg_class r WHERE r.oid = a.attrelid) "
            + "|| '_' || a.attname || '_not_null') "
            + "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
            + "WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";
    private static final String SEQUENCES = "SELECT s.oid::regclass::text, s.relname, a.attname, " + SEQUENCE_OPTIONS
            + " FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
            + "JOIN pg_sequence q ON q.seqrelid = s.oid "
            + "JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid "
            + "WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = ? AND d.deptype = 'a' "
            + "AND d.classid = 'pg_class'::regclass ORDER BY a.attnum";
    private static final String CONSTRAINTS = "SELECT conname, contype, pg_get_constraintdef(oid), confrelid, "
            + "CASE WHEN confrelid <> 0 THEN confrelid::regclass::text END FROM pg_constraint "
            + "WHERE conrelid = ? AND contype IN ('p', 'u', 'x', 'c', 'f') AND conislocal "
            + "ORDER BY contype, conname";
    /** Indexes that back no constraint; regclass prints the table as pg_get_indexdef does: qualified and quoted. */
    private static final String INDEXES = "SELECT i.relname, x.indisunique, pg_get_indexdef(x.indexrelid), "
            + "x.indrelid::regclass::text FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
            + "WHERE x.indrelid = ? AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid "
            + "AND k.conrelid = x.indrelid AND k.contype IN ('p', 'u', 'x')) ORDER BY i.relname";
    /**
     * The comment, UNLOGGED, the privileges the owner granted others on the table and its columns (grantee 0 is
     * PUBLIC: a NULL name; one row as parallel arrays in one order: the table's, then each column's, each in its
     * ACL's order, so that granted in that order the copy's ACL reads as the source's), and the owner.
     */
    private static final String COMMENT = "SELECT obj_description(c.oid, 'pg_class'), c.relpersistence = 'u', "
            + "g.columns, g.grantees, g.privileges, g.grantable, pg_get_userbyid(c.relowner)::text "
            + "FROM pg_class c LEFT JOIN LATERAL ("
            + "SELECT array_agg(x.col ORDER BY x.col NULLS FIRST, x.ord) AS columns, "
            + "array_agg(x.grantee ORDER BY x.col NULLS FIRST, x.ord) AS grantees, "
            + "array_agg(x.priv ORDER BY x.col NULLS FIRST, x.ord) AS privileges, "
            + "array_agg(x.grantable ORDER BY x.col NULLS FIRST, x.ord) AS grantable "
            + "FROM (SELECT e.col, CASE WHEN e.grantee = 0 THEN NULL ELSE pg_get_userbyid(e.grantee)::text END "
            + "AS grantee, e.privilege_type AS priv, bool_or(e.is_grantable) AS grantable, min(e.ord) AS ord FROM ("
            + "SELECT NULL::text AS col, a.* FROM aclexplode(c.relacl) WITH ORDINALITY "
            + "a(grantor, grantee, privilege_type, is_grantable, ord) UNION ALL "
            + "SELECT t.attname::text, a.* FROM pg_attribute t, aclexplode(t.attacl) WITH ORDINALITY "
            + "a(grantor, grantee, privilege_type, is_grantable, ord) WHERE t.attrelid = c.oid "
            + "AND t.attnum > 0 AND NOT t.attisdropped) e WHERE e.grantee <> c.relowner "
            + "GROUP BY e.col, e.grantee, e.privilege_type) x) g ON true WHERE c.oid = ?::oid";

    private final Connection connection;
    /** A column's type (or its element type) is not built in: {@link #types} has something to find. */
    private boolean usesUserTypes;

    private SourceDefinitions(Connection connection) {
        this.connection = connection;
    }

    /**
     * The definition of {@code table}, read on {@code connection}: a session whose search_path is empty
     * ({@link PostgresConnections#qualifying}).
     */
    static TableDefinition read(Connection connection, ResolvedTable table) throws SQLException {
        return readAll(connection, List.of(table)).get(table.oid());
    }

    /** The statements every table's definition is read with, one parameter (its OID) each. */
    private static final int READS = 5;

    /** How many tables' reads go to the server in one round trip ({@link #READS} statements each). */
    private static final int TABLES_PER_TRIP = 50;

    /**
     * The definitions of {@code tables}, by OID: the five reads every table needs, for up to fifty tables in one
     * round trip (PgJDBC sends the statements together and hands back their results in order; at 10,000 tables the
     * round trips were most of the time), then what only some tables need (user types, partitions) table by table.
     */
    static java.util.Map<Long, TableDefinition> readAll(Connection connection, List<ResolvedTable> tables)
            throws SQLException {
        java.util.Map<Long, TableDefinition> definitions = new java.util.LinkedHashMap<>();
        String one = String.join(";\n", COLUMNS, SEQUENCES, CONSTRAINTS, INDEXES, COMMENT);
        for (int from = 0; from < tables.size(); from += TABLES_PER_TRIP) {
            List<ResolvedTable> trip = tables.subList(from, Math.min(tables.size(), from + TABLES_PER_TRIP));
            List<Read> reads = new ArrayList<>();
            try (PreparedStatement p = connection.prepareStatement(String.join(";\n",
                    java.util.Collections.nCopies(trip.size(), one)))) {
                int parameter = 1;
                for (ResolvedTable table : trip) {
                    for (int i = 0; i < READS; i++) {
                        p.setLong(parameter++, table.oid());
                    }
                }
                p.execute();
                int statement = 1;
                for (ResolvedTable table : trip) {
                    SourceDefinitions reader = new SourceDefinitions(connection);
                    List<TableDefinition.ColumnDefinition> columns = reader.columns(results(p, statement++));
                    List<TableDefinition.Sequence> sequences = sequences(results(p, statement++));
                    List<TableDefinition.Constraint> constraints = reader.constraints(results(p, statement++));
                    List<TableDefinition.Index> indexes = indexes(results(p, statement++));
                    Optional<String> comment;
                    boolean unlogged;
                    List<TableDefinition.Grant> grants;
                    Optional<String> owner;
                    try (ResultSet rs = results(p, statement++)) {
                        rs.next();
                        comment = Optional.ofNullable(rs.getString(1));
                        unlogged = rs.getBoolean(2);
                        grants = grants(rs);
                        owner = Optional.ofNullable(rs.getString(7));
                    }
                    reads.add(new Read(table, reader, columns, sequences, constraints, indexes, comment, unlogged,
                            grants, owner));
                }
            }
            for (Read read : reads) {
                definitions.put(read.table().oid(), read.definition());
            }
        }
        return definitions;
    }

    /** One table's five reads, and the rest of its definition read after them. */
    private record Read(ResolvedTable table, SourceDefinitions reader,
                        List<TableDefinition.ColumnDefinition> columns, List<TableDefinition.Sequence> sequences,
                        List<TableDefinition.Constraint> constraints, List<TableDefinition.Index> indexes,
                        Optional<String> comment, boolean unlogged, List<TableDefinition.Grant> grants,
                        Optional<String> owner) {
        TableDefinition definition() throws SQLException {
            long oid = table.oid();
            // What the copy does not make with the table, asked only where the text shows it may be there: a
            // nextval of a sequence no column owns, or a call of a function outside pg_catalog (printed qualified on
            // this session, whose search_path is empty). Asked for every table, it cost 0.3 ms a table of a plan.
            List<TableDefinition.StandaloneSequence> standalone = new ArrayList<>();
            List<TableDefinition.Routine> routines = new ArrayList<>();
            if (DefinitionUses.mayUseMore(columns, sequences, constraints, indexes)) {
                DefinitionUses.read(reader.connection, oid, standalone, routines);
            }
            // Built-in types need no other: the recursive search (the costliest query here) only for user types.
            List<TableDefinition.Type> types = reader.usesUserTypes ? reader.types(oid) : List.of();
            return new TableDefinition(table.name(), types, columns, sequences,
                    table.relkind() == 'p' ? PartitionDefinitions.key(reader.connection, oid) : Optional.empty(),
                    table.relkind() == 'p' ? PartitionDefinitions.read(reader.connection, oid) : List.of(),
                    constraints, indexes, comment, unlogged, grants, standalone, owner, routines);
        }
    }

    /** The grants of {@link #COMMENT}'s row: four arrays, one entry per grant, NULL arrays for none. */
    private static List<TableDefinition.Grant> grants(ResultSet rs) throws SQLException {
        java.sql.Array columns = rs.getArray(3);
        if (columns == null) {
            return List.of();
        }
        Object[] column = (Object[]) columns.getArray();
        Object[] grantee = (Object[]) rs.getArray(4).getArray();
        Object[] privilege = (Object[]) rs.getArray(5).getArray();
        Object[] grantable = (Object[]) rs.getArray(6).getArray();
        List<TableDefinition.Grant> grants = new ArrayList<>();
        for (int i = 0; i < column.length; i++) {
            grants.add(new TableDefinition.Grant(Optional.ofNullable((String) column[i]),
                    Optional.ofNullable((String) grantee[i]), (String) privilege[i], (Boolean) grantable[i]));
        }
        return grants;
    }

    /** The result of the {@code n}th statement (from 1) of {@code p}, read in order. */
    private static ResultSet results(PreparedStatement p, int n) throws SQLException {
        if (n > 1 && !p.getMoreResults()) {
            throw new SQLException("statement " + n + " of a catalog read returned no result");
        }
        return p.getResultSet();
    }

    private List<TableDefinition.ColumnDefinition> columns(ResultSet results) throws SQLException {
        List<TableDefinition.ColumnDefinition> columns = new ArrayList<>();
        try (ResultSet rs = results) {
            while (rs.next()) {
                String expression = rs.getString(2);
                String identity = rs.getString(3);
                boolean generated = !rs.getString(4).isEmpty();
                usesUserTypes |= rs.getBoolean(9);
                columns.add(new TableDefinition.ColumnDefinition(rs.getString(1),
                        generated ? Optional.empty() : Optional.ofNullable(expression),
                        switch (identity) {
                            case "a" -> Optional.of("ALWAYS");
                            case "d" -> Optional.of("BY DEFAULT");
                            default -> Optional.empty();
                        }, Optional.ofNullable(rs.getString(7)), Optional.ofNullable(rs.getString(8)),
                        generated ? Optional.of(expression) : Optional.empty(),
                        Optional.ofNullable(rs.getString(5)), Optional.ofNullable(rs.getString(6)),
                        Optional.ofNullable(rs.getString(10)), Optional.ofNullable(rs.getString(11))));
            }
        }
        return columns;
    }

    private static List<TableDefinition.Sequence> sequences(ResultSet results) throws SQLException {
        List<TableDefinition.Sequence> sequences = new ArrayList<>();
        try (ResultSet rs = results) {
            while (rs.next()) {
                sequences.add(new TableDefinition.Sequence(rs.getString(1), rs.getString(2), rs.getString(3),
                        rs.getString(4)));
            }
        }
        return sequences;
    }

    private List<TableDefinition.Constraint> constraints(ResultSet results) throws SQLException {
        record Row(String name, char type, String definition, long referenced, String referencedName) {
        }
        List<Row> rows = new ArrayList<>();
        try (ResultSet rs = results) {
            while (rs.next()) {
                rows.add(new Row(rs.getString(1), rs.getString(2).charAt(0), rs.getString(3), rs.getLong(4),
                        rs.getString(5)));
            }
        }
        PostgresCatalog catalog = new PostgresCatalog(connection);
        List<TableDefinition.Constraint> constraints = new ArrayList<>();
        for (Row row : rows) {
            Optional<RelationIdentity> references = row.referenced() == 0 ? Optional.empty()
                    : Optional.of(new RelationIdentity(catalog.relationKey(row.referenced()), row.referencedName()));
            constraints.add(new TableDefinition.Constraint(row.name(), row.type(), row.definition(), references,
                    Optional.ofNullable(row.referencedName())));
        }
        return constraints;
    }

    private static List<TableDefinition.Index> indexes(ResultSet results) throws SQLException {
        List<TableDefinition.Index> indexes = new ArrayList<>();
        try (ResultSet rs = results) {
            while (rs.next()) {
                String definition = rs.getString(3);
                String using = " " + rs.getString(4) + " USING ";
                int at = definition.indexOf(using);
                if (at < 0) {
                    throw new SQLException("cannot read the definition of index " + rs.getString(1) + ": "
                            + definition);
                }
                indexes.add(new TableDefinition.Index(rs.getString(1), rs.getBoolean(2),
                        definition.substring(at + using.length() - "USING ".length())));
            }
        }
        return indexes;
    }

    /**
     * The user-defined enum, domain, composite and range types the columns need, directly or through a domain's
     * base, a composite's attributes or a range's subtype: the deepest first, so each comes after what it needs.
     */
    private List<TableDefinition.Type> types(long oid) throws SQLException {
        return types("SELECT " + String.format(ELEMENT, "t") + ", 0 FROM pg_attribute a JOIN pg_type t "
                + "ON t.oid = a.atttypid WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped", oid);
    }

    /**
     * Every enum, domain, range and composite type (not a table's row type) of the schema {@code schemaOid}, and the
     * types they need, each after what it needs: for a target that carries the schema's objects.
     */
    static List<TableDefinition.Type> schemaTypes(Connection connection, long schemaOid) throws SQLException {
        return new SourceDefinitions(connection).types("SELECT t.oid, 0 FROM pg_type t LEFT JOIN pg_class r "
                + "ON r.oid = t.typrelid WHERE t.typnamespace = ? AND (t.typtype IN ('e', 'd', 'r') "
                + "OR t.typtype = 'c' AND r.relkind = 'c') AND NOT EXISTS (SELECT 1 FROM pg_depend e "
                + "WHERE e.classid = 'pg_type'::regclass AND e.objid = t.oid AND e.deptype = 'e')", schemaOid);
    }

    /** The types {@code seed} (one parameter, {@code key}) selects and those they need, the deepest first. */
    private List<TableDefinition.Type> types(String seed, long key) throws SQLException {
        String sql = "WITH RECURSIVE needs(oid, depth) AS ("
                + seed + " "
                + "UNION SELECT d.dep, n.depth + 1 FROM needs n, LATERAL ("
                + "SELECT " + String.format(ELEMENT, "b") + " AS dep FROM pg_type t JOIN pg_type b "
                + "ON b.oid = t.typbasetype WHERE t.oid = n.oid AND t.typtype = 'd' "
                + "UNION ALL SELECT " + String.format(ELEMENT, "b") + " FROM pg_type t JOIN pg_attribute a "
                + "ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped JOIN pg_type b "
                + "ON b.oid = a.atttypid WHERE t.oid = n.oid AND t.typtype = 'c' "
                + "UNION ALL SELECT r.rngsubtype FROM pg_range r WHERE r.rngtypid = n.oid) d WHERE n.depth < 16) "
                + "SELECT t.oid, t.typtype, nsp.nspname, format_type(t.oid, NULL) FROM needs "
                + "JOIN pg_type t ON t.oid = needs.oid JOIN pg_namespace nsp ON nsp.oid = t.typnamespace "
                + "LEFT JOIN pg_class r ON r.oid = t.typrelid "
                + "WHERE nsp.nspname NOT IN ('pg_catalog', 'information_schema') AND nsp.nspname NOT LIKE 'pg\\_%' "
                + "AND (t.typtype IN ('e', 'd', 'r') OR t.typtype = 'c' AND r.relkind = 'c') "
                + "GROUP BY t.oid, t.typtype, nsp.nspname ORDER BY max(needs.depth) DESC, t.oid";
        record Needed(long oid, char kind, String schema, String name) {
        }
        List<Needed> needed = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, key);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    needed.add(new Needed(rs.getLong(1), rs.getString(2).charAt(0), rs.getString(3),
                            rs.getString(4)));
                }
            }
        }
        List<TableDefinition.Type> types = new ArrayList<>();
        for (Needed type : needed) {
            String body = switch (type.kind()) {
                case 'e' -> "AS ENUM (" + text("SELECT string_agg(quote_literal(enumlabel), ', ' ORDER BY "
                        + "enumsortorder) FROM pg_enum WHERE enumtypid = ?", type.oid()).orElse("") + ")";
                case 'd' -> domain(type.oid());
                case 'r' -> "AS RANGE (" + text("SELECT 'SUBTYPE = ' || format_type(rngsubtype, NULL) "
                        + "|| CASE WHEN rngsubdiff <> 0 THEN ', SUBTYPE_DIFF = ' || rngsubdiff::regproc::text ELSE '' "
                        + "END || CASE WHEN rngcollation <> 0 THEN ', COLLATION = ' || (SELECT quote_ident(n.nspname) "
                        + "|| '.' || quote_ident(c.collname) FROM pg_collation c JOIN pg_namespace n "
                        + "ON n.oid = c.collnamespace WHERE c.oid = rngcollation) ELSE '' END "
                        + "|| ', MULTIRANGE_TYPE_NAME = ' || format_type(rngmultitypid, NULL) FROM pg_range "
                        + "WHERE rngtypid = ?", type.oid()).orElseThrow() + ")";
                default -> "AS (" + text("SELECT string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, "
                        + "a.atttypmod), ', ' ORDER BY a.attnum) FROM pg_type t JOIN pg_attribute a "
                        + "ON a.attrelid = t.typrelid WHERE t.oid = ? AND a.attnum > 0 AND NOT a.attisdropped",
                        type.oid()).orElse("") + ")";
            };
            types.add(new TableDefinition.Type(type.schema(), type.name(), (type.kind() == 'd' ? "CREATE DOMAIN "
                    : "CREATE TYPE ") + type.name() + " " + body));
        }
        return types;
    }

    private String domain(long oid) throws SQLException {
        String base = text("SELECT format_type(typbasetype, typtypmod) || CASE WHEN typcollation <> 0 AND "
                + "typcollation <> (SELECT typcollation FROM pg_type b WHERE b.oid = t.typbasetype) THEN ' COLLATE ' "
                + "|| (SELECT quote_ident(n.nspname) || '.' || quote_ident(c.collname) FROM pg_collation c "
                + "JOIN pg_namespace n ON n.oid = c.collnamespace WHERE c.oid = t.typcollation) ELSE '' END "
                + "|| COALESCE(' DEFAULT ' || typdefault, '') FROM pg_type t WHERE oid = ?", oid).orElseThrow();
        Optional<String> constraints = text("SELECT string_agg(' CONSTRAINT ' || quote_ident(conname) || ' ' "
                + "|| pg_get_constraintdef(oid), '' ORDER BY contype, conname) FROM pg_constraint "
                + "WHERE contypid = ?", oid);
        boolean notNullOutsideConstraints = text("SELECT (typnotnull AND NOT EXISTS (SELECT 1 FROM pg_constraint "
                + "WHERE contypid = t.oid AND contype = 'n'))::text FROM pg_type t WHERE oid = ?", oid)
                .orElse("false").equals("true");
        return "AS " + base + constraints.orElse("") + (notNullOutsideConstraints ? " NOT NULL" : "");
    }

    private Optional<String> text(String sql, long oid) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setLong(1, oid);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /** The statement that creates the enum, domain, range or composite type {@code typeName} as it is defined here. */
    static Optional<String> typeStatement(Connection c, String typeName) throws SQLException {
        String sql = "SELECT t.typtype, format_type(t.oid, NULL), CASE t.typtype "
                + "WHEN 'e' THEN (SELECT string_agg(quote_literal(enumlabel), ', ' ORDER BY enumsortorder) "
                + "FROM pg_enum WHERE enumtypid = t.oid) "
                + "WHEN 'd' THEN format_type(t.typbasetype, t.typtypmod) || COALESCE(' ' || (SELECT "
                + "string_agg(pg_get_constraintdef(oid), ' ') FROM pg_constraint WHERE contypid = t.oid), '') "
                + "WHEN 'r' THEN (SELECT format_type(rngsubtype, NULL) FROM pg_range WHERE rngtypid = t.oid) "
                + "WHEN 'c' THEN (SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), "
                + "', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = t.typrelid AND attnum > 0 "
                + "AND NOT attisdropped) END FROM pg_type t WHERE t.oid = to_regtype(?)";
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, typeName);
            try (java.sql.ResultSet rs = p.executeQuery()) {
                if (!rs.next() || rs.getString(3) == null) {
                    return Optional.empty();
                }
                String name = rs.getString(2);
                return Optional.of(switch (rs.getString(1)) {
                    case "e" -> "CREATE TYPE " + name + " AS ENUM (" + rs.getString(3) + ")";
                    case "d" -> "CREATE DOMAIN " + name + " AS " + rs.getString(3);
                    case "r" -> "CREATE TYPE " + name + " AS RANGE (SUBTYPE = " + rs.getString(3) + ")";
                    default -> "CREATE TYPE " + name + " AS (" + rs.getString(3) + ")";
                });
            }
        }
    }
}
