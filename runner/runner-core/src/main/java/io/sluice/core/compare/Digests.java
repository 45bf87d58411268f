package io.sluice.core.compare;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * A stream's digests computed as its copy reads: up to {@code degree} statements on each server at once, both
 * servers at the same time (a compare takes about as long as the slower server's hashing, not the sum of both).
 * Each digest on a virtual thread of its own; those past the degree wait for a slot.
 */
final class Digests implements AutoCloseable {
    /** A digest (or digests) that may fail as a connector fails. */
    interface Work<T> {
        T compute() throws ConnectorException;
    }

    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore sourceSlots;
    private final Semaphore targetSlots;

    Digests(int degree) {
        int slots = Math.max(1, degree);
        this.sourceSlots = new Semaphore(slots);
        this.targetSlots = new Semaphore(slots);
    }

    <T> Future<T> source(Work<T> work) {
        return threads.submit(limited(sourceSlots, work));
    }

    <T> Future<T> target(Work<T> work) {
        return threads.submit(limited(targetSlots, work));
    }

    /** The digest, or the connector's failure as it was thrown. */
    <T> T await(Future<T> digest) throws ConnectorException {
        try {
            return digest.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException(ErrorKind.FAILED, RunnerCode.COMPARE003, "the compare was interrupted",
                    "run it again", e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case ConnectorException c -> throw c;
                case RuntimeException r -> throw r;
                case Error error -> throw error;
                default -> throw new IllegalStateException("a digest failed", e.getCause());
            }
        }
    }

    private static <T> Callable<T> limited(Semaphore slots, Work<T> work) {
        return () -> {
            slots.acquire();
            try {
                return work.compute();
            } finally {
                slots.release();
            }
        };
    }

    /** Stops what has not started and waits for what runs (a statement on a server ends with its connection). */
    @Override
    public void close() {
        threads.shutdownNow();
        threads.close();
    }
}
