package io.sluice.connector.duckdb;

/** Quoting for the SQL Sluice builds around user queries. */
final class Sql {
    private Sql() {
    }

    static String identifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    /** A user query without trailing semicolons and blanks, so it can be wrapped as a subquery. */
    static String stripTerminator(String query) {
        String s = query.strip();
        while (s.endsWith(";")) {
            s = s.substring(0, s.length() - 1).strip();
        }
        return s;
    }
}
