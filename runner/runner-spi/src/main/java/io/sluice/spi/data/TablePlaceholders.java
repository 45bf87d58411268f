package io.sluice.spi.data;

import static java.util.Objects.requireNonNull;

/**
 * The placeholders a user's SQL on a target (hooks, {@code sql} checks) names the stream's table with:
 * {@value #TABLE} as an identifier ({@code "public"."orders"}) and {@value #TABLE_LITERAL} as a string literal of
 * the same text ({@code '"public"."orders"'}, so {@code {table_literal}::regclass} is the table). A name is never
 * pasted into SQL any other way: one inside a quoted string would end the string (lint refuses {@value #TABLE}
 * there, SPEC034).
 */
public final class TablePlaceholders {
    public static final String TABLE = "{table}";
    public static final String TABLE_LITERAL = "{table_literal}";

    private TablePlaceholders() {
    }

    /** {@code sql} with both placeholders replaced for {@code quotedTable} (the table's quoted, qualified name). */
    public static String expand(String sql, String quotedTable) {
        requireNonNull(sql, "sql is null");
        requireNonNull(quotedTable, "quotedTable is null");
        return sql.replace(TABLE_LITERAL, literal(quotedTable)).replace(TABLE, quotedTable);
    }

    /**
     * {@code value} as a PostgreSQL string literal, whatever {@code standard_conforming_strings} says: {@code '...'}
     * with quotes doubled, or {@code E'...'} with backslashes doubled too when it holds one.
     */
    public static String literal(String value) {
        String quoted = value.replace("'", "''");
        return value.indexOf('\\') < 0 ? "'" + quoted + "'" : "E'" + quoted.replace("\\", "\\\\") + "'";
    }
}
