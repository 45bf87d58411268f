package io.sluice.core.run;

import io.sluice.core.spec.RetrySpec;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import static java.util.Objects.requireNonNull;

/** Exponential backoff with full jitter: attempt n waits a random time up to min(max, initial * 2^(n-1)). */
final class Backoff {
    private final RetrySpec retry;

    Backoff(RetrySpec retry) {
        this.retry = requireNonNull(retry, "retry is null");
    }

    Duration before(int nextAttempt) {
        long initial = retry.initialBackoff().toMillis();
        long cap = retry.maxBackoff().toMillis();
        int doublings = Math.min(30, Math.max(0, nextAttempt - 2));
        long ceiling = Math.min(cap, initial << doublings);
        long half = ceiling / 2;
        // Half fixed, half random: spreads retries of many partitions without ever retrying instantly.
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(ceiling - half + 1));
    }
}
