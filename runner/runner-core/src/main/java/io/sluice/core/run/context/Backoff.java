package io.sluice.core.run.context;

import io.sluice.core.spec.RetrySpec;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import static java.util.Objects.requireNonNull;

/** Exponential backoff with full jitter: attempt n waits a random time up to min(max, initial * 2^(n-1)). */
public final class Backoff {
    private final RetrySpec retry;

    public Backoff(RetrySpec retry) {
        this.retry = requireNonNull(retry, "retry is null");
    }

    /** Waits {@code wait} unless {@code stop} says so first (polled every 100 ms); whether it waited it out. */
    public static boolean pause(Duration wait, java.util.function.BooleanSupplier stop) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (!stop.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.sleep(Math.min(left, 100_000_000L));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    public Duration before(int nextAttempt) {
        long initial = retry.initialBackoff().toMillis();
        long cap = retry.maxBackoff().toMillis();
        int doublings = Math.min(30, Math.max(0, nextAttempt - 2));
        long ceiling = Math.min(cap, initial << doublings);
        long half = ceiling / 2;
        // Half fixed, half random: spreads retries of many partitions without ever retrying instantly.
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(ceiling - half + 1));
    }
}
