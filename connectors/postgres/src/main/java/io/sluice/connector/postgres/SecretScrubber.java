package io.sluice.connector.postgres;

import java.util.Comparator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** Removes known secret strings (password, the JDBC URL with its parameters) from text before anyone sees it. */
record SecretScrubber(List<String> secrets) {
    SecretScrubber {
        // Longest first, so a URL that contains the password is removed whole.
        secrets = requireNonNull(secrets, "secrets is null").stream()
                .filter(s -> s != null && s.length() >= 3)
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
    }

    static SecretScrubber none() {
        return new SecretScrubber(List.of());
    }

    String scrub(String text) {
        if (text == null) {
            return "";
        }
        String out = text;
        for (String secret : secrets) {
            out = out.replace(secret, "<redacted>");
        }
        return out;
    }
}
