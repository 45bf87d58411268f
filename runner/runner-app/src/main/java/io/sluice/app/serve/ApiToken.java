package io.sluice.app.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import static java.util.Objects.requireNonNull;

/**
 * The bearer token every {@code /api} call must carry. Only a digest is kept, compared in constant time, and the
 * token never prints: {@link #toString()} is a mask, so a logged settings object cannot leak it.
 */
public final class ApiToken {
    /** Shorter tokens are refused at start: a guessable token is no lock. */
    public static final int MINIMUM_LENGTH = 16;

    private final byte[] digest;

    private ApiToken(byte[] digest) {
        this.digest = digest;
    }

    public static ApiToken of(String token) {
        requireNonNull(token, "token is null");
        String trimmed = token.strip();
        if (trimmed.length() < MINIMUM_LENGTH) {
            throw new IllegalArgumentException("the API token must have at least " + MINIMUM_LENGTH
                    + " characters (e.g. 'openssl rand -hex 32')");
        }
        return new ApiToken(sha256(trimmed));
    }

    /** True when {@code presented} is the token. Digests of equal length make the comparison constant-time. */
    public boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(digest, sha256(presented));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "ApiToken[***]";
    }
}
