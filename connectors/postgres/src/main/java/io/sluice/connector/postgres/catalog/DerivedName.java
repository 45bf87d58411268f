package io.sluice.connector.postgres.catalog;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * A name Sluice derives from a user's (a shadow table, an index's name while it waits to take the original's), kept
 * within PostgreSQL's 63 bytes: PostgreSQL would silently cut a longer one, and two cut names could collide. A base
 * too long keeps its head, cut at a character boundary, and gains a hash of the whole so distinct bases stay distinct.
 */
public final class DerivedName {
    static final int MAX_BYTES = 63;

    private DerivedName() {
    }

    public static String of(String base, String suffix) {
        requireNonNull(base, "base is null");
        requireNonNull(suffix, "suffix is null");
        String whole = base + suffix;
        if (bytes(whole) <= MAX_BYTES) {
            return whole;
        }
        String hash = "_" + HexFormat.of().formatHex(sha256(base), 0, 4);
        int room = MAX_BYTES - bytes(suffix) - bytes(hash);
        StringBuilder head = new StringBuilder();
        for (int i = 0; i < base.length(); ) {
            int cp = base.codePointAt(i);
            String next = new String(Character.toChars(cp));
            if (bytes(head.toString()) + bytes(next) > room) {
                break;
            }
            head.append(next);
            i += Character.charCount(cp);
        }
        return head + hash + suffix;
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static byte[] sha256(String s) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
