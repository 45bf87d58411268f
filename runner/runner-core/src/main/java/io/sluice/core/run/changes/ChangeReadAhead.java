package io.sluice.core.run.changes;

import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.changes.ChangeFeed;
import io.sluice.spi.error.ConnectorException;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static java.util.Objects.requireNonNull;

/**
 * Reads a feed's batches on a thread of its own, one batch ahead of the thread that applies them: the source decodes
 * and sends the next batch while the target applies this one (read, then apply, one after the other, left each
 * server idle half the time). Besides the batch being applied, at most two are held: one waiting, one being read.
 * The reading decides where to stop: up to a position, or when {@code stop} says so, or (following until caught up)
 * once the source stopped moving; confirmations go back through {@link ChangeFeed#confirm}, which any thread may
 * call.
 */
final class ChangeReadAhead implements AutoCloseable {
    /** A batch read and how far behind the stopping position it left the reading; or the end, or a failure. */
    record Read(ChangeBatch batch, long behindBytes) {
    }

    private record Item(Read read, Throwable failure) {
    }

    private static final Item END = new Item(null, null);

    private final ChangeFeed changes;
    private final BlockingQueue<Item> ready = new ArrayBlockingQueue<>(1);
    private final Thread thread;
    private volatile boolean closed;

    /**
     * Starts reading {@code changes}: up to {@code upTo} when given, else until {@code stop} (and, when
     * {@code untilCaughtUp}, until the source's position stops moving).
     */
    ChangeReadAhead(String name, ChangeFeed changes, Optional<String> upTo, boolean untilCaughtUp,
                    BooleanSupplier stop, int batchChanges, long batchBytes, Duration wait) {
        this.changes = requireNonNull(changes, "changes is null");
        requireNonNull(upTo, "upTo is null");
        requireNonNull(stop, "stop is null");
        requireNonNull(wait, "wait is null");
        this.thread = Thread.ofVirtual().name(requireNonNull(name, "name is null")).start(() -> {
            try {
                read(upTo.orElse(null), upTo.isEmpty() && untilCaughtUp, stop, batchChanges, batchBytes, wait);
                hand(END);
            } catch (Throwable e) { // an Error too: the applying thread waits for a word either way
                try {
                    hand(new Item(null, e));
                } catch (Throwable lost) {
                    e.addSuppressed(lost); // the applying thread sees this thread end without a word
                }
            }
        });
    }

    private void read(String target, boolean untilCaughtUp, BooleanSupplier stop, int batchChanges, long batchBytes,
                      Duration wait) throws ConnectorException, InterruptedException {
        while (!closed) {
            if (target == null && (stop.getAsBoolean() || untilCaughtUp)) {
                target = changes.currentPosition(); // stop at what the source has now
            }
            if (target != null && changes.reached(target)) {
                if (untilCaughtUp && !stop.getAsBoolean()) {
                    // Caught up with where the source was: done when it has not moved on since.
                    String now = changes.currentPosition();
                    if (!changes.reached(now)) {
                        target = now;
                        continue;
                    }
                }
                return;
            }
            ChangeBatch batch = changes.next(batchChanges, batchBytes, wait);
            if (!batch.isEmpty()) {
                hand(new Item(new Read(batch, target == null ? 0 : changes.bytesBehind(target)), null));
            }
        }
    }

    /**
     * Waits until the applying thread takes {@code item}, or the reading is closed, keeping the source's side of the
     * stream alive meanwhile (it ends a stream it has not heard from for a while).
     */
    private void hand(Item item) throws ConnectorException, InterruptedException {
        while (!closed) {
            if (ready.offer(item, 100, TimeUnit.MILLISECONDS)) {
                return;
            }
            changes.keepAlive();
        }
    }

    /** The next batch read, in the source's order; empty once the reading stopped where it was to stop. */
    Optional<Read> next() throws ConnectorException {
        Item item;
        try {
            do {
                item = ready.poll(1, TimeUnit.SECONDS);
                if (item == null && !thread.isAlive() && ready.isEmpty()) {
                    throw new IllegalStateException("the thread reading the changes ended without a word");
                }
            } while (item == null);
        } catch (InterruptedException e) {
            // Not a place to stop: the batch before may be part of a source transaction still open on the target.
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the next batch of changes", e);
        }
        switch (item.failure()) {
            case null -> {
                return Optional.ofNullable(item.read());
            }
            case ConnectorException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException("reading the changes failed", item.failure());
        }
    }

    /** Stops the reading; the feed may be closed after this returns. */
    @Override
    public void close() {
        closed = true;
        ready.clear();
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
