package io.sluice.connector.postgres.catalog;

/**
 * Quoting for SQL text sent to PostgreSQL. Literals assume standard_conforming_strings=on, which every connection
 * Sluice opens makes sure of, so a backslash is an ordinary character and only the quote needs doubling.
 */
public final class SqlQuote {
    private SqlQuote() {
    }

    /** {@code "name"} with embedded double quotes doubled; always quoted so case and odd characters survive. */
    public static String identifier(String name) {
        if (name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a valid identifier: empty or contains NUL");
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** {@code 'value'} with embedded single quotes doubled. PostgreSQL text cannot hold NUL, so it is refused. */
    public static String literal(String value) {
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a PostgreSQL string cannot contain NUL");
        }
        return '\'' + value.replace("'", "''") + '\'';
    }
}
