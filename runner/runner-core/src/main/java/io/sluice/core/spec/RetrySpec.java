package io.sluice.core.spec;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/** {@code retry:} how often and how patiently a partition is retried after a transient failure. */
public record RetrySpec(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    public static final RetrySpec DEFAULT = new RetrySpec(5, Duration.ofSeconds(1), Duration.ofSeconds(60));

    public RetrySpec {
        requireNonNull(initialBackoff, "initialBackoff is null");
        requireNonNull(maxBackoff, "maxBackoff is null");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }
}
