package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;

import io.sluice.spi.read.SchemaObject.Kind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The schema's operators, read with its other objects ({@link SourceObjects}): built from {@code pg_operator} as
 * pg_dump builds them, as no server function prints one. Names print qualified (the session's search path is empty);
 * a commutator or negator not made yet is made as a shell by PostgreSQL and filled when its turn comes.
 */
final class SourceOperators {
    private static final String OTHER = "(SELECT 'OPERATOR(' || quote_ident(xn.nspname) || '.' || x.oprname || ')' "
            + "FROM pg_operator x JOIN pg_namespace xn ON xn.oid = x.oprnamespace WHERE x.oid = %s)";
    private static final String OPERATORS = "SELECT o.oid, o.oid::regoperator::text, "
            + "quote_ident(n.nspname) || '.' || o.oprname, "
            + "CASE WHEN o.oprleft <> 0 THEN format_type(o.oprleft, NULL) END, "
            + "CASE WHEN o.oprright <> 0 THEN format_type(o.oprright, NULL) END, o.oprcode::regproc::text, "
            + "NULL, " + OTHER.formatted("o.oprcom") + ", " + OTHER.formatted("o.oprnegate")
            + ", NULLIF(o.oprrest, 0)::regproc::text, NULLIF(o.oprjoin, 0)::regproc::text, o.oprcanhash, "
            + "o.oprcanmerge, obj_description(o.oid, 'pg_operator'), pg_get_userbyid(o.oprowner)::text, "
            + "ARRAY(SELECT p::bigint FROM unnest(ARRAY[o.oprcode, o.oprrest, o.oprjoin]::oid[]) p "
            + "WHERE p >= " + PostgresCatalog.FIRST_NORMAL_OID + ") "
            + "FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace "
            + "WHERE o.oprnamespace = ? AND o.oprcode <> 0 AND NOT EXISTS (SELECT 1 FROM pg_depend e "
            + "WHERE e.classid = 'pg_operator'::regclass AND e.objid = o.oid AND e.deptype = 'e') ORDER BY 2";

    /** The options of {@link #OPERATORS}' columns 4 to 11 (6, the function, is FUNCTION; 7 is unused). */
    private static final String[] OPTIONS = {"LEFTARG", "RIGHTARG", "", "", "COMMUTATOR", "NEGATOR", "RESTRICT",
            "JOIN"};

    private SourceOperators() {
    }

    static void read(Connection c, long schemaOid, Map<String, ObjectDraft> drafts) throws SQLException {
        SourceObjects.eachRow(c, OPERATORS, schemaOid, rs -> {
            String identity = rs.getString(2);
            List<String> parts = new ArrayList<>(List.of("FUNCTION = " + rs.getString(6)));
            for (int column = 4; column <= 11; column++) { // each option the operator sets, in pg_dump's order
                if (!OPTIONS[column - 4].isEmpty() && rs.getString(column) != null) {
                    parts.add(OPTIONS[column - 4] + " = " + rs.getString(column));
                }
            }
            if (rs.getBoolean(12)) {
                parts.add("HASHES");
            }
            if (rs.getBoolean(13)) {
                parts.add("MERGES");
            }
            List<String> statements = new ArrayList<>(List.of("CREATE OPERATOR " + rs.getString(3) + " ("
                    + String.join(", ", parts) + ")"));
            SourceObjects.comment(statements, "OPERATOR " + identity, rs.getString(14));
            Set<String> uses = new LinkedHashSet<>();
            for (Object proc : (Object[]) rs.getArray(16).getArray()) {
                if (drafts.containsKey("proc:" + proc)) { // another schema's or an extension's: the target's to have
                    uses.add("proc:" + proc);
                }
            }
            String key = "operator:" + rs.getLong(1);
            ObjectDraft operator = new ObjectDraft(Kind.OPERATOR, key, identity, Optional.empty(), identity,
                    statements, uses, Set.of());
            operator.owner = Optional.ofNullable(rs.getString(15));
            drafts.put(key, operator);
        });
    }
}
