package io.sluice.connector.postgres.read;

/** The text of a {@code query:} as it can be nested in {@code FROM (...)}: without a trailing semicolon. */
public final class SourceQuery {
    private SourceQuery() {
    }

    static String strip(String query) {
        String text = query.strip();
        while (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).strip();
        }
        return text;
    }
}
