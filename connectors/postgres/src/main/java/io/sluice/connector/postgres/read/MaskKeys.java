package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.SqlQuote;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The keys a source's {@code mask: hash} columns are hashed with, kept out of the SQL it sends: the expression reads
 * {@code current_setting('sluice.mask_key_N')}, and each reading transaction sets it first with a bound parameter. A
 * statement that fails is logged by the server ({@code log_min_error_statement}, ERROR by default) with its text: with
 * the key pasted in, the key went into the server's log.
 */
final class MaskKeys {
    private static final String PREFIX = "sluice.mask_key_";

    /** Setting name by key. */
    private final Map<String, String> names = new ConcurrentHashMap<>();
    /** Numbers the settings: two keys named at once must not both take the map's size. */
    private final java.util.concurrent.atomic.AtomicInteger named = new java.util.concurrent.atomic.AtomicInteger();

    /** The SQL that reads {@code keyLiteral}'s key (a quoted SQL string, as the runner writes it) from its setting. */
    String reference(String keyLiteral) {
        requireNonNull(keyLiteral, "keyLiteral is null");
        if (keyLiteral.length() < 2 || !keyLiteral.startsWith("'") || !keyLiteral.endsWith("'")) {
            throw new IllegalArgumentException("not a plain SQL string literal");
        }
        String key = keyLiteral.substring(1, keyLiteral.length() - 1).replace("''", "'");
        String name = names.computeIfAbsent(key, k -> PREFIX + named.incrementAndGet());
        return "current_setting(" + SqlQuote.literal(name) + ")";
    }

    /** Sets every key in {@code c}'s open transaction (local to it), before a statement that reads one. */
    void set(Connection c) throws SQLException {
        if (names.isEmpty()) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement("SELECT set_config(?, ?, true)")) {
            for (Map.Entry<String, String> key : names.entrySet()) {
                p.setString(1, key.getValue());
                p.setString(2, key.getKey());
                p.execute();
            }
        }
    }
}
