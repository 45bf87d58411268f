package io.sluice.connector.duckdb;

/**
 * DuckDB's {@code to_json} writes a NaN or infinite float bare ({@code {"a":NaN}}), which is not JSON, so json and
 * jsonb refuse it. Such a value is written as a string instead ({@code {"a":"NaN"}}), as PostgreSQL's own
 * {@code to_jsonb} writes one: a created jsonb column then holds every value its load reads.
 */
final class JsonNonFinite {
    private JsonNonFinite() {
    }

    /** Whether a value of this DuckDB type can hold a float, so its JSON may carry a non-finite one. */
    static boolean possibleIn(String duckDbType) {
        String type = duckDbType.toUpperCase(java.util.Locale.ROOT);
        return type.contains("DOUBLE") || type.contains("FLOAT") || type.contains("REAL");
    }

    /** {@code json} with each bare NaN, Infinity and -Infinity outside a string quoted; the same object when none. */
    static String quote(String json) {
        StringBuilder out = null;
        boolean inString = false;
        int copied = 0;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++; // the escaped character, whatever it is
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            if (c == '"') {
                inString = true;
                continue;
            }
            String token = json.startsWith("NaN", i) ? "NaN" : json.startsWith("Infinity", i) ? "Infinity"
                    : json.startsWith("-Infinity", i) ? "-Infinity" : null;
            if (token == null) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(json.length() + 8);
            }
            out.append(json, copied, i).append('"').append(token).append('"');
            i += token.length() - 1;
            copied = i + 1;
        }
        return out == null ? json : out.append(json, copied, json.length()).toString();
    }
}
