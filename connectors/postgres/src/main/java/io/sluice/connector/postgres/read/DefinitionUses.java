package io.sluice.connector.postgres.read;

import io.sluice.spi.data.TableDefinition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a table's definition uses that the copy does not make with the table: sequences its defaults draw from that no
 * column owns, and functions its expressions call. Asked only of tables whose expression text shows they may
 * ({@link #mayUseMore}): asked of every table, it cost a plan of many tables about 0.3 ms a table.
 */
final class DefinitionUses {
    private DefinitionUses() {
    }

    /**
     * What the table's defaults, constraints and indexes use that the copy does not make with the table, in one
     * statement: the sequences a default draws from that no column of the table owns (kind {@code s}: schema, name,
     * options, last value) and the functions (not built in) they call (kind {@code f}: signature, extension); only
     * defaults, checks, exclusions and expression or partial indexes can call one. The table's objects are found
     * first (materialized), then each one's dependencies by the depender's key (LATERAL, kept from being flattened by
     * OFFSET 0): planned the other way round (the catalog's statistics of a freshly made schema say nothing), the
     * server read every dependency of every default in the database for each table, and a plan of 2,000 tables took
     * 2.5x as long.
     */
    private static final String USES = "WITH t AS MATERIALIZED (SELECT ?::oid AS rel), objs AS MATERIALIZED ("
            + "SELECT 'pg_attrdef'::regclass::oid AS cls, a.oid FROM pg_attrdef a, t WHERE a.adrelid = t.rel "
            + "UNION ALL SELECT 'pg_constraint'::regclass::oid, c.oid FROM pg_constraint c, t WHERE c.conrelid = t.rel "
            + "AND c.contype IN ('c', 'x') UNION ALL SELECT 'pg_class'::regclass::oid, i.indexrelid FROM pg_index i, t "
            + "WHERE i.indrelid = t.rel AND (i.indexprs IS NOT NULL OR i.indpred IS NOT NULL)), "
            + "refs AS MATERIALIZED (SELECT DISTINCT o.cls, d.refclassid, d.refobjid FROM objs o CROSS JOIN LATERAL "
            + "(SELECT refclassid, refobjid FROM pg_depend WHERE classid = o.cls AND objid = o.oid "
            + "AND refclassid IN ('pg_proc'::regclass, 'pg_class'::regclass) OFFSET 0) d) "
            + "SELECT DISTINCT 's' AS kind, n.nspname::text, s.relname::text, " + SourceDefinitions.SEQUENCE_OPTIONS + " AS options, "
            + "CASE WHEN has_sequence_privilege(s.oid, 'SELECT,USAGE') THEN pg_sequence_last_value(s.oid) END AS last, "
            + "NULL::text AS ext FROM refs r CROSS JOIN t JOIN pg_class s ON s.oid = r.refobjid AND s.relkind = 'S' "
            + "JOIN pg_namespace n ON n.oid = s.relnamespace JOIN pg_sequence q ON q.seqrelid = s.oid "
            + "WHERE r.cls = 'pg_attrdef'::regclass AND r.refclassid = 'pg_class'::regclass AND NOT EXISTS ("
            + "SELECT 1 FROM pg_depend o WHERE o.classid = 'pg_class'::regclass AND o.objid = s.oid "
            + "AND o.refobjid = t.rel AND o.deptype IN ('a', 'i')) "
            + "UNION SELECT 'f', NULL, f.oid::regprocedure::text, NULL, NULL, x.extname FROM refs r "
            + "JOIN pg_proc f ON f.oid = r.refobjid JOIN pg_namespace n ON n.oid = f.pronamespace "
            + "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
            + "LEFT JOIN pg_depend e ON e.classid = 'pg_proc'::regclass AND e.objid = f.oid AND e.deptype = 'e' "
            + "LEFT JOIN pg_extension x ON x.oid = e.refobjid WHERE r.refclassid = 'pg_proc'::regclass "
            + "ORDER BY 1, 2, 3";

    /** A call of a function named with its schema, as pg_get_expr prints one outside pg_catalog. */
    private static final Pattern QUALIFIED_CALL = Pattern.compile(
            "(?:\"[^\"]+\"|[A-Za-z_][\\w$]*)\\.(?:\"[^\"]+\"|[A-Za-z_][\\w$]*)\\s*\\(");
    /** A default's {@code nextval('<sequence>'::regclass)}. */
    private static final Pattern NEXTVAL = Pattern.compile(
            "nextval\\('((?:[^']|'')+)'::regclass\\)");

    /**
     * Whether the table's expressions (defaults, generated columns, checks, exclusions, indexes) may use what
     * {@link #USES} finds: a sequence no column owns, or a function outside pg_catalog.
     */
    static boolean mayUseMore(List<TableDefinition.ColumnDefinition> columns, List<TableDefinition.Sequence> owned,
                              List<TableDefinition.Constraint> constraints, List<TableDefinition.Index> indexes) {
        Set<String> ownedNames = owned.stream().map(TableDefinition.Sequence::qualifiedName)
                .collect(Collectors.toSet());
        List<String> expressions = new ArrayList<>();
        for (TableDefinition.ColumnDefinition column : columns) {
            column.defaultExpression().ifPresent(expressions::add);
            column.generatedExpression().ifPresent(expressions::add);
        }
        constraints.stream().filter(c -> c.type() == 'c' || c.type() == 'x')
                .forEach(c -> expressions.add(c.definition()));
        indexes.forEach(i -> expressions.add(i.method()));
        for (String expression : expressions) {
            if (QUALIFIED_CALL.matcher(expression).find()) {
                return true;
            }
            Matcher nextval = NEXTVAL.matcher(expression);
            while (nextval.find()) {
                if (!ownedNames.contains(nextval.group(1).replace("''", "'"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@link #USES} for the table {@code oid}: sequences (kind {@code s}) and functions (kind {@code f}). */
    static void read(Connection connection, long oid, List<TableDefinition.StandaloneSequence> sequences,
                     List<TableDefinition.Routine> routines) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(USES)) {
            p.setLong(1, oid);
            read(p.executeQuery(), sequences, routines);
        }
    }

    private static void read(ResultSet results, List<TableDefinition.StandaloneSequence> sequences,
                             List<TableDefinition.Routine> routines) throws SQLException {
        try (ResultSet rs = results) {
            while (rs.next()) {
                if (rs.getString(1).equals("s")) {
                    long last = rs.getLong(5);
                    Optional<Long> lastValue = rs.wasNull() ? Optional.empty() : Optional.of(last); // before next get
                    sequences.add(new TableDefinition.StandaloneSequence(rs.getString(2), rs.getString(3),
                            rs.getString(4), lastValue));
                } else {
                    routines.add(new TableDefinition.Routine(rs.getString(3), Optional.ofNullable(rs.getString(6))));
                }
            }
        }
    }
}
