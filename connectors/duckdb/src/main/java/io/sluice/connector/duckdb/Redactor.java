package io.sluice.connector.duckdb;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** Scrubs configured secret values out of text that may reach a log or a message (DuckDB errors echo SQL). */
final class Redactor {
    private final List<String> secrets;

    Redactor(List<String> secrets) {
        this.secrets = List.copyOf(requireNonNull(secrets, "secrets is null"));
    }

    String scrub(String text) {
        if (text == null) {
            return "";
        }
        String result = text;
        for (String secret : secrets) {
            if (!secret.isEmpty()) {
                result = result.replace(secret, "***");
            }
        }
        return result;
    }
}
