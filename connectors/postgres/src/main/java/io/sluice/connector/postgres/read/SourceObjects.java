package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.SqlQuote;

import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.read.SchemaObject.Kind;
import io.sluice.spi.read.SchemaObjects;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a schema's objects beyond its tables ({@link SchemaObjects}) from the source's catalog, as pg_dump does: on a
 * session with an empty search path, so every name the server prints comes schema-qualified, with the server's own
 * functions for the definitions, and the order from {@code pg_depend}. Objects an extension brings are the
 * extension's, not the schema's.
 */
final class SourceObjects {
    static final String QUALIFIED = "quote_ident(n.nspname) || '.' || quote_ident(c.relname)";
    /**
     * Whether the object's ACL is set (not the defaults), and what its owner granted others, one
     * {@code grantee|privilege|grantable} each (an empty grantee for PUBLIC), in the ACL's order: granted in that
     * order, the target's ACL reads as the source's (pg_dump prints it so).
     */
    private static final String PRIVILEGES = "%1$s IS NOT NULL, ARRAY(SELECT CASE WHEN x.grantee = 0 THEN '' ELSE "
            + "pg_get_userbyid(x.grantee)::text END || '|' || x.privilege_type || '|' || x.is_grantable "
            + "FROM aclexplode(%1$s) WITH ORDINALITY x WHERE x.grantee <> %2$s ORDER BY x.ordinality)";
    static final String NOT_EXTENSION = " AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = "
            + "'pg_%s'::regclass AND e.objid = %s.oid AND e.deptype = 'e')";
    /** The schema's comment, owner and privileges. */
    private static final String SCHEMA = "SELECT obj_description(n.oid, 'pg_namespace'), "
            + "pg_get_userbyid(n.nspowner)::text, " + PRIVILEGES.formatted("n.nspacl", "n.nspowner")
            + " FROM pg_namespace n WHERE n.oid = ?";
    /** Functions, procedures and aggregates; an aggregate's parts, which no server function prints whole. */
    private static final String ROUTINES = "SELECT p.oid, p.prokind, p.oid::regprocedure::text, "
            + "quote_ident(n.nspname) || '.' || quote_ident(p.proname), "
            + "CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) END, obj_description(p.oid, 'pg_proc'), "
            + "pg_get_function_identity_arguments(p.oid), a.aggkind, a.aggtransfn::regproc::text, "
            + "format_type(a.aggtranstype, NULL), NULLIF(a.aggfinalfn, 0)::regproc::text, a.agginitval, "
            + "NULLIF(a.aggcombinefn, 0)::regproc::text, a.aggserialfn <> 0 OR a.aggmtransfn <> 0 OR a.aggsortop <> 0 "
            + "OR a.aggfinalextra OR a.aggfinalmodify <> 'r', pg_get_userbyid(p.proowner)::text, "
            + PRIVILEGES.formatted("p.proacl", "p.proowner") + " "
            + "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            + "LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid "
            + "WHERE p.pronamespace = ? AND p.prokind IN ('f', 'p', 'a')" + NOT_EXTENSION.formatted("proc", "p")
            + " ORDER BY 3";
    private static final String VIEWS = "SELECT c.oid, c.relkind, " + QUALIFIED + ", pg_get_viewdef(c.oid), "
            + "array_to_string(c.reloptions, ', '), obj_description(c.oid, 'pg_class'), "
            + "(SELECT r.oid FROM pg_rewrite r WHERE r.ev_class = c.oid AND r.rulename = '_RETURN'), "
            + "ARRAY(SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE i.indrelid = c.oid "
            + "ORDER BY i.indexrelid), "
            + "ARRAY(SELECT 'COMMENT ON COLUMN ' || " + QUALIFIED + " || '.' || quote_ident(a.attname) || ' IS ' "
            + "|| quote_literal(d.description) FROM pg_attribute a JOIN pg_description d ON d.objoid = a.attrelid "
            + "AND d.objsubid = a.attnum AND d.classoid = 'pg_class'::regclass WHERE a.attrelid = c.oid "
            + "ORDER BY a.attnum), pg_get_userbyid(c.relowner)::text, "
            + PRIVILEGES.formatted("c.relacl", "c.relowner") + " "
            + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE c.relnamespace = ? AND c.relkind IN ('v', 'm')" + NOT_EXTENSION.formatted("class", "c")
            + " ORDER BY 3";
    /** Triggers a partition has because its parent has them are the parent's ({@code tgparentid}, PostgreSQL 13). */
    private static final String TRIGGERS = "SELECT t.oid, " + QUALIFIED + ", t.tgname, pg_get_triggerdef(t.oid), "
            + "t.tgenabled, obj_description(t.oid, 'pg_trigger') "
            + "FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE c.relnamespace = ? AND NOT t.tgisinternal "
            + "AND coalesce((to_jsonb(t) ->> 'tgparentid')::oid, 0) = 0 ORDER BY 2, 3";
    private static final String RULES = "SELECT r.oid, " + QUALIFIED + ", r.rulename, pg_get_ruledef(r.oid), "
            + "obj_description(r.oid, 'pg_rewrite') FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class "
            + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relnamespace = ? AND r.rulename <> '_RETURN' "
            + "ORDER BY 2, 3";
    /** A policy's roles: a NULL name for PUBLIC (role 0). */
    private static final String POLICIES = "SELECT p.oid, " + QUALIFIED + ", p.polname, p.polpermissive, p.polcmd, "
            + "ARRAY(SELECT CASE WHEN r = 0 THEN NULL ELSE pg_get_userbyid(r)::text END FROM unnest(p.polroles) r), "
            + "pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid), "
            + "obj_description(p.oid, 'pg_policy') "
            + "FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE c.relnamespace = ? ORDER BY 2, 3";
    private static final String ROW_SECURITY = "SELECT c.oid, " + QUALIFIED + ", c.relforcerowsecurity "
            + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relnamespace = ? "
            + "AND c.relkind IN ('r', 'p') AND c.relrowsecurity ORDER BY 2";
    /**
     * What the objects use: routines and relations (tables, views; a relation's row type, or an array of it, as the
     * relation), a partition as its root, built-in objects left out (they are on every server).
     */
    private static final String USES = "SELECT CASE d.classid WHEN 'pg_proc'::regclass THEN 'proc' "
            + "WHEN 'pg_rewrite'::regclass THEN 'rule' WHEN 'pg_trigger'::regclass THEN 'trigger' ELSE 'policy' END, "
            + "d.objid, d.refclassid = 'pg_proc'::regclass, CASE WHEN d.refclassid = 'pg_proc'::regclass "
            + "THEN d.refobjid ELSE coalesce(pg_partition_root(r.oid)::oid, r.oid) END "
            + "FROM pg_depend d LEFT JOIN pg_type t ON d.refclassid = 'pg_type'::regclass AND t.oid = d.refobjid "
            + "LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typrelid = 0 "
            + "LEFT JOIN pg_class r ON r.oid = CASE WHEN d.refclassid = 'pg_class'::regclass THEN d.refobjid "
            + "ELSE coalesce(NULLIF(t.typrelid, 0), e.typrelid) END AND r.relkind IN ('r', 'p', 'v', 'm') "
            + "WHERE d.classid IN ('pg_proc'::regclass, 'pg_rewrite'::regclass, "
            + "'pg_trigger'::regclass, 'pg_policy'::regclass) AND d.objid::bigint = ANY (?) "
            + "AND d.deptype IN ('n', 'a') AND d.refobjid >= " + PostgresCatalog.FIRST_NORMAL_OID + " "
            + "AND (d.refclassid = 'pg_proc'::regclass OR r.oid IS NOT NULL)";
    /**
     * The extensions whose members the schema's relations (a column's type, an index's operator class), routines,
     * defaults, constraints, rules, triggers, policies and text search dictionaries (a template) use, and those
     * installed in the schema.
     */
    private static final String EXTENSIONS = "SELECT x.extname, xn.nspname, ARRAY(SELECT format_type(t.objid, NULL) "
            + "FROM pg_depend t WHERE t.refclassid = 'pg_extension'::regclass AND t.refobjid = x.oid "
            + "AND t.deptype = 'e' AND t.classid = 'pg_type'::regclass) FROM pg_extension x "
            + "JOIN pg_namespace xn ON xn.oid = x.extnamespace WHERE x.extnamespace = ? OR EXISTS ("
            + "SELECT 1 FROM pg_depend m JOIN pg_depend d ON d.refclassid = m.classid AND d.refobjid = m.objid "
            + "WHERE m.refclassid = 'pg_extension'::regclass AND m.refobjid = x.oid AND m.deptype = 'e' "
            + "AND d.deptype IN ('n', 'a') AND ("
            + "d.classid = 'pg_class'::regclass AND d.objid IN (SELECT oid FROM pg_class WHERE relnamespace = ?) "
            + "OR d.classid = 'pg_proc'::regclass AND d.objid IN (SELECT oid FROM pg_proc WHERE pronamespace = ?) "
            + "OR d.classid = 'pg_type'::regclass AND d.objid IN (SELECT oid FROM pg_type WHERE typnamespace = ?) "
            + "OR d.classid = 'pg_constraint'::regclass AND d.objid IN (SELECT oid FROM pg_constraint "
            + "WHERE connamespace = ?) "
            + "OR d.classid = 'pg_attrdef'::regclass AND d.objid IN (SELECT a.oid FROM pg_attrdef a "
            + "JOIN pg_class c ON c.oid = a.adrelid WHERE c.relnamespace = ?) "
            + "OR d.classid = 'pg_ts_dict'::regclass AND d.objid IN (SELECT oid FROM pg_ts_dict "
            + "WHERE dictnamespace = ?) "
            + "OR d.classid IN ('pg_rewrite'::regclass, 'pg_trigger'::regclass, 'pg_policy'::regclass) "
            + "AND d.objid::bigint = ANY (?))) ORDER BY 1";
    /** What pg_dump -n carries and this does not, then what belongs to the database (pg_dump without -n). */
    private static final String NOT_CARRIED = "not carried: operator classes and families, text search parsers and "
            + "templates, foreign tables (pg_dump --schema-only -n %s carries them); casts, event triggers, foreign "
            + "servers and publications FOR ALL TABLES, which belong to the database (pg_dump --schema-only without -n "
            + "carries them). The functions' and views' owners follow owners:, their grants privileges: copy";

    private SourceObjects() {
    }

    /** The objects of schema {@code schema} (its {@code oid}), in an order that creates each after what it uses. */
    static SchemaObjects.Contents read(Connection c, long schemaOid, String schema, Optional<String> feedPublication)
            throws SQLException {
        PostgresCatalog catalog = new PostgresCatalog(c);
        Map<String, ObjectDraft> drafts = new HashMap<>();
        List<String> notCarried = new ArrayList<>();
        /** A view's {@code _RETURN} rule, whose uses are the view's. */
        Map<Long, String> viewOfRule = new HashMap<>();
        List<Long> oids = new ArrayList<>();
        /** The schema's routines not carried: what uses one is not carried either. */
        Set<String> leftOut = new HashSet<>();
        eachRow(c, ROUTINES, schemaOid, rs -> {
            if (!routine(rs, drafts, notCarried, oids)) {
                leftOut.add("proc:" + rs.getLong(1));
            }
        });
        eachRow(c, SCHEMA, schemaOid, rs -> {
            List<String> statements = new ArrayList<>();
            comment(statements, "SCHEMA " + SqlQuote.identifier(schema), rs.getString(1));
            String key = "schema:" + schemaOid;
            ObjectDraft draft = new ObjectDraft(Kind.SCHEMA, key, SqlQuote.identifier(schema), Optional.empty(),
                    SqlQuote.identifier(schema), statements, Set.of(), Set.of());
            draft.owner = Optional.ofNullable(rs.getString(2));
            draft.privileges = privileges(rs, 3);
            drafts.put(key, draft);
        });
        // The schema's types, those no copied table needs included (a function's argument, a view's cast): each
        // created where missing, so the tables' own (created with them) are skipped.
        List<String> types = new ArrayList<>();
        for (TableDefinition.Type type : SourceDefinitions.schemaTypes(c, schemaOid)) {
            types.add("DO $sluice$ BEGIN " + type.statement() + "; EXCEPTION WHEN duplicate_object THEN NULL; "
                    + "END $sluice$");
        }
        if (!types.isEmpty()) {
            String key = "types:" + schemaOid;
            drafts.put(key, new ObjectDraft(Kind.TYPES, key, "the types of schema " + SqlQuote.identifier(schema),
                    Optional.empty(), schema, types, Set.of(), Set.of()));
        }
        eachRow(c, VIEWS, schemaOid, rs -> {
            boolean materialized = rs.getString(2).equals("m");
            String name = rs.getString(3);
            String options = rs.getString(5);
            String with = options == null || options.isEmpty() ? "" : " WITH (" + options + ")";
            List<String> statements = new ArrayList<>();
            statements.add("CREATE " + (materialized ? "MATERIALIZED VIEW " : "VIEW ") + name + with + " AS"
                    + withoutSemicolon(rs.getString(4)) + (materialized ? " WITH NO DATA" : ""));
            if (materialized) {
                statements.addAll(strings(rs.getArray(8)));
            }
            comment(statements, (materialized ? "MATERIALIZED VIEW " : "VIEW ") + name, rs.getString(6));
            statements.addAll(strings(rs.getArray(9)));
            String key = catalog.relationKey(rs.getLong(1));
            ObjectDraft view = new ObjectDraft(materialized ? Kind.MATERIALIZED_VIEW : Kind.VIEW, key, name,
                    Optional.empty(), name, statements, Set.of(), Set.of());
            view.owner = Optional.ofNullable(rs.getString(10));
            view.privileges = privileges(rs, 11);
            drafts.put(key, view);
            viewOfRule.put(rs.getLong(7), key);
            oids.add(rs.getLong(7));
        });
        eachRow(c, TRIGGERS, schemaOid, rs -> {
            String table = rs.getString(2);
            String trigger = rs.getString(3);
            List<String> statements = new ArrayList<>(List.of(rs.getString(4)));
            String enabled = switch (rs.getString(5)) {
                case "D" -> "DISABLE TRIGGER ";
                case "R" -> "ENABLE REPLICA TRIGGER ";
                case "A" -> "ENABLE ALWAYS TRIGGER ";
                default -> "";
            };
            if (!enabled.isEmpty()) {
                statements.add("ALTER TABLE " + table + " " + enabled + SqlQuote.identifier(trigger));
            }
            comment(statements, "TRIGGER " + SqlQuote.identifier(trigger) + " ON " + table, rs.getString(6));
            put(drafts, oids, rs.getLong(1), "trigger", Kind.TRIGGER, trigger, table, statements, Set.of());
        });
        eachRow(c, RULES, schemaOid, rs -> {
            String table = rs.getString(2);
            String rule = rs.getString(3);
            List<String> statements = new ArrayList<>(List.of(withoutSemicolon(rs.getString(4))));
            comment(statements, "RULE " + SqlQuote.identifier(rule) + " ON " + table, rs.getString(5));
            put(drafts, oids, rs.getLong(1), "rule", Kind.RULE, rule, table, statements, Set.of());
        });
        eachRow(c, POLICIES, schemaOid, rs -> {
            policy(rs, drafts, oids);
        });
        eachRow(c, ROW_SECURITY, schemaOid, rs -> {
            String table = rs.getString(2);
            List<String> statements = new ArrayList<>(List.of("ALTER TABLE " + table
                    + " ENABLE ROW LEVEL SECURITY"));
            if (rs.getBoolean(3)) {
                statements.add("ALTER TABLE " + table + " FORCE ROW LEVEL SECURITY");
            }
            String key = "row-security:" + rs.getLong(1);
            drafts.put(key, new ObjectDraft(Kind.ROW_SECURITY, key, table, Optional.of(table), table, statements,
                    Set.of(catalog.relationKey(rs.getLong(1))), Set.of()));
        });
        uses(c, catalog, drafts, viewOfRule, oids, leftOut);
        SourceOperators.read(c, schemaOid, drafts);
        SourceTextSearch.read(c, schemaOid, drafts, notCarried);
        SourcePartitionParts.read(c, catalog, schemaOid, drafts);
        SourcePublications.read(c, catalog, schemaOid, schema, feedPublication, drafts, notCarried);
        notCarried.add(NOT_CARRIED.formatted(SqlQuote.identifier(schema)));
        return new SchemaObjects.Contents(ObjectDraft.ordered(drafts), notCarried, extensions(c, schemaOid, oids));
    }

    /** A query's reading of one row. */
    interface Row {
        void read(ResultSet rs) throws SQLException;
    }

    /** Runs {@code sql}, whose one parameter is the schema's oid, and reads each row. */
    static void eachRow(Connection c, String sql, long schemaOid, Row row) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setLong(1, schemaOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    row.read(rs);
                }
            }
        }
    }

    /** Reads one routine into {@code drafts}; false when it is not carried (said in {@code notCarried}). */
    private static boolean routine(ResultSet rs, Map<String, ObjectDraft> drafts, List<String> notCarried, List<Long> oids)
            throws SQLException {
        String signature = rs.getString(3);
        String kind = rs.getString(2);
        List<String> statements = new ArrayList<>();
        Kind carried;
        if (kind.equals("a")) {
            if (!"n".equals(rs.getString(8)) || rs.getBoolean(14)) {
                notCarried.add("aggregate " + signature + " (an ordered-set, moving or parallel aggregate, or one "
                        + "with a sort operator: create it as the source has it)");
                return false;
            }
            StringBuilder create = new StringBuilder("CREATE AGGREGATE ").append(rs.getString(4)).append('(')
                    .append(rs.getString(7)).append(") (SFUNC = ").append(rs.getString(9)).append(", STYPE = ")
                    .append(rs.getString(10));
            if (rs.getString(11) != null) {
                create.append(", FINALFUNC = ").append(rs.getString(11));
            }
            if (rs.getString(12) != null) {
                create.append(", INITCOND = ").append(SqlQuote.literal(rs.getString(12)));
            }
            if (rs.getString(13) != null) {
                create.append(", COMBINEFUNC = ").append(rs.getString(13));
            }
            statements.add(create.append(')').toString());
            carried = Kind.AGGREGATE;
        } else {
            statements.add(rs.getString(5).strip());
            carried = kind.equals("p") ? Kind.PROCEDURE : Kind.FUNCTION;
        }
        comment(statements, carried.name() + " " + signature, rs.getString(6));
        String key = "proc:" + rs.getLong(1);
        ObjectDraft routine = new ObjectDraft(carried, key, signature, Optional.empty(), signature, statements, Set.of(), Set.of());
        routine.owner = Optional.ofNullable(rs.getString(15));
        routine.privileges = privileges(rs, 16);
        drafts.put(key, routine);
        oids.add(rs.getLong(1));
        return true;
    }

    private static void policy(ResultSet rs, Map<String, ObjectDraft> drafts, List<Long> oids) throws SQLException {
        String table = rs.getString(2);
        String policy = rs.getString(3);
        String command = switch (rs.getString(5)) {
            case "r" -> "SELECT";
            case "a" -> "INSERT";
            case "w" -> "UPDATE";
            case "d" -> "DELETE";
            default -> "ALL";
        };
        Set<String> roles = new LinkedHashSet<>();
        List<String> to = new ArrayList<>();
        for (Object role : (Object[]) rs.getArray(6).getArray()) {
            if (role == null) {
                to.add("PUBLIC");
            } else {
                roles.add((String) role);
                to.add(SqlQuote.identifier((String) role));
            }
        }
        StringBuilder create = new StringBuilder("CREATE POLICY ").append(SqlQuote.identifier(policy)).append(" ON ")
                .append(table).append(rs.getBoolean(4) ? " AS PERMISSIVE" : " AS RESTRICTIVE").append(" FOR ")
                .append(command).append(" TO ").append(String.join(", ", to));
        if (rs.getString(7) != null) {
            create.append(" USING (").append(rs.getString(7)).append(')');
        }
        if (rs.getString(8) != null) {
            create.append(" WITH CHECK (").append(rs.getString(8)).append(')');
        }
        List<String> statements = new ArrayList<>(List.of(create.toString()));
        comment(statements, "POLICY " + SqlQuote.identifier(policy) + " ON " + table, rs.getString(9));
        put(drafts, oids, rs.getLong(1), "policy", Kind.POLICY, policy, table, statements, roles);
    }

    private static void put(Map<String, ObjectDraft> drafts, List<Long> oids, long oid, String catalog, Kind kind,
                            String name, String table, List<String> statements, Set<String> roles) {
        String key = catalog + ":" + oid;
        drafts.put(key, new ObjectDraft(kind, key, SqlQuote.identifier(name) + " on " + table, Optional.of(table), name,
                statements, Set.of(), roles));
        oids.add(oid);
    }

    private static List<SchemaObjects.Extension> extensions(Connection c, long schemaOid, List<Long> oids)
            throws SQLException {
        List<SchemaObjects.Extension> extensions = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(EXTENSIONS)) {
            for (int i = 1; i <= 7; i++) {
                p.setLong(i, schemaOid);
            }
            p.setArray(8, c.createArrayOf("bigint", oids.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    extensions.add(new SchemaObjects.Extension(rs.getString(1), rs.getString(2),
                            Set.copyOf(strings(rs.getArray(3)))));
                }
            }
        }
        return extensions;
    }

    /** Fills each draft's uses from {@code pg_depend}: the routines and relations it needs first. */
    private static void uses(Connection c, PostgresCatalog catalog, Map<String, ObjectDraft> drafts,
                             Map<Long, String> viewOfRule, List<Long> oids, Set<String> leftOut) throws SQLException {
        if (oids.isEmpty()) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement(USES)) {
            p.setArray(1, c.createArrayOf("bigint", oids.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String catalogName = rs.getString(1);
                    long objid = rs.getLong(2);
                    String key = catalogName.equals("rule") && viewOfRule.containsKey(objid) ? viewOfRule.get(objid)
                            : catalogName + ":" + objid;
                    ObjectDraft draft = drafts.get(key);
                    if (draft == null) {
                        continue; // an object left out (an aggregate not carried)
                    }
                    String used = rs.getBoolean(3) ? "proc:" + rs.getLong(4) : catalog.relationKey(rs.getLong(4));
                    if (rs.getBoolean(3) && !drafts.containsKey(used) && !leftOut.contains(used)) {
                        continue; // another schema's or an extension's routine: the target's to have (PG241)
                    }
                    if (!used.equals(key)) {
                        draft.uses.add(used);
                    }
                }
            }
        }
    }

    /** The privileges read by {@link #PRIVILEGES} at column {@code at}: empty where they are the defaults. */
    private static Optional<List<TableDefinition.Grant>> privileges(ResultSet rs, int at) throws SQLException {
        if (!rs.getBoolean(at)) {
            return Optional.empty();
        }
        List<TableDefinition.Grant> grants = new ArrayList<>();
        for (String grant : strings(rs.getArray(at + 1))) {
            int grantable = grant.lastIndexOf('|');
            int privilege = grant.lastIndexOf('|', grantable - 1);
            String grantee = grant.substring(0, privilege);
            grants.add(new TableDefinition.Grant(Optional.empty(), grantee.isEmpty() ? Optional.empty()
                    : Optional.of(grantee), grant.substring(privilege + 1, grantable),
                    grant.substring(grantable + 1).equals("true")));
        }
        return Optional.of(grants);
    }

    static void comment(List<String> statements, String object, String comment) {
        if (comment != null) {
            statements.add("COMMENT ON " + object + " IS " + SqlQuote.literal(comment));
        }
    }

    private static String withoutSemicolon(String text) {
        String stripped = text.stripTrailing();
        return stripped.endsWith(";") ? stripped.substring(0, stripped.length() - 1) : stripped;
    }

    static List<String> strings(Array array) throws SQLException {
        List<String> values = new ArrayList<>();
        for (Object value : (Object[]) array.getArray()) {
            values.add((String) value);
        }
        return values;
    }
}
