package io.sluice.spi.data;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How a stream side waits for a lock another session holds: for how long at most, and whom it tells while it waits
 * (the progress line, the log), so a load held up by someone else says so instead of looking hung.
 */
public interface LockWaits {
    /** The spec's documented default {@code lock-timeout}: what a side waits until the runner says otherwise. */
    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** The longest wait for one lock; {@link Duration#ZERO} waits without limit. */
    Duration timeout();

    /** A wait begins: {@code what} names the object, the lock and who holds it, e.g. {@code lock on "public"."t"}. */
    void waiting(String what);

    /** The wait that began with {@code waiting(what)} ended, with the lock or without it. */
    void waited(String what);

    /** Waits up to {@code timeout} and tells no one. */
    static LockWaits silent(Duration timeout) {
        return of(timeout, (what, waiting) -> {
        });
    }

    /** Waits up to {@code timeout} and tells {@code listener} each wait's start (true) and end (false). */
    static LockWaits of(Duration timeout, java.util.function.BiConsumer<String, Boolean> listener) {
        requireNonNull(timeout, "timeout is null");
        requireNonNull(listener, "listener is null");
        return new LockWaits() {
            @Override
            public Duration timeout() {
                return timeout;
            }

            @Override
            public void waiting(String what) {
                listener.accept(what, true);
            }

            @Override
            public void waited(String what) {
                listener.accept(what, false);
            }
        };
    }
}
