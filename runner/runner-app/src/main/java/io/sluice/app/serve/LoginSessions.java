package io.sluice.app.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The pages' logins: a login cookie holds a random session value, never the API token, so a cookie that leaks (a
 * proxy log, a shared browser) ends with its session and not with the service. Only digests are kept; sessions end
 * at logout, after {@code lifetime}, or when more than {@code maxSessions} exist (the oldest first).
 */
final class LoginSessions {
    static final Duration DEFAULT_LIFETIME = Duration.ofHours(12);
    static final int DEFAULT_MAX_SESSIONS = 1000;

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Instant> expiries = new ConcurrentHashMap<>();
    private final Duration lifetime;
    private final int maxSessions;
    private final Clock clock;

    LoginSessions(Duration lifetime, int maxSessions, Clock clock) {
        this.lifetime = requireNonNull(lifetime, "lifetime is null");
        this.clock = requireNonNull(clock, "clock is null");
        if (maxSessions < 1) {
            throw new IllegalArgumentException("maxSessions must be positive: " + maxSessions);
        }
        this.maxSessions = maxSessions;
    }

    LoginSessions() {
        this(DEFAULT_LIFETIME, DEFAULT_MAX_SESSIONS, Clock.systemUTC());
    }

    /** A new session's value, for the cookie. */
    String open() {
        byte[] value = new byte[32];
        random.nextBytes(value);
        String session = Base64.getUrlEncoder().withoutPadding().encodeToString(value);
        Instant now = clock.instant();
        expiries.values().removeIf(expiry -> !expiry.isAfter(now));
        while (expiries.size() >= maxSessions) {
            expiries.entrySet().stream().min(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                    .ifPresent(expiries::remove);
        }
        expiries.put(digest(session), now.plus(lifetime));
        return session;
    }

    /** True when {@code session} was opened here, has not expired and was not closed. */
    boolean valid(String session) {
        if (session == null || session.isEmpty()) {
            return false;
        }
        Instant expiry = expiries.get(digest(session));
        return expiry != null && expiry.isAfter(clock.instant());
    }

    void close(String session) {
        if (session != null) {
            expiries.remove(digest(session));
        }
    }

    private static String digest(String session) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(session.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
