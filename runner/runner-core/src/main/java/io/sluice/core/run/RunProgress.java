package io.sluice.core.run;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Live counters of the stream that is running, read by progress printers and metrics while workers add to them.
 * Bytes move as they are copied; rows when a partition commits (a reader counts rows, not the wire).
 */
public final class RunProgress {
    private final LongAdder bytes = new LongAdder();
    private final LongAdder rows = new LongAdder();
    private final LongAdder uncommittedRows = new LongAdder();
    private final AtomicInteger partitionsDone = new AtomicInteger();
    private final AtomicInteger partitionsTotal = new AtomicInteger();
    private final AtomicLong estimatedBytes = new AtomicLong();
    private final AtomicLong startedNanos = new AtomicLong(System.nanoTime());
    private final AtomicReference<String> stream = new AtomicReference<>("");
    private final java.util.Set<String> waitingFor = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private volatile boolean acrossStreams;

    /** Several streams run at once: each adds to the totals instead of starting them afresh. */
    void acrossStreams() {
        acrossStreams = true;
    }

    void startStream(String name, int partitions, long estimatedBytes) {
        if (acrossStreams) {
            stream.accumulateAndGet(name, (all, one) -> all.isEmpty() ? one : all + ", " + one);
            partitionsTotal.addAndGet(partitions);
            this.estimatedBytes.addAndGet(estimatedBytes);
            return;
        }
        stream.set(name);
        bytes.reset();
        rows.reset();
        uncommittedRows.reset();
        partitionsDone.set(0);
        partitionsTotal.set(partitions);
        this.estimatedBytes.set(estimatedBytes);
        startedNanos.set(System.nanoTime());
        waitingFor.clear();
    }

    void waiting(String what, boolean waiting) {
        if (waiting) {
            waitingFor.add(what);
        } else {
            waitingFor.remove(what);
        }
    }

    void addBytes(long n) {
        bytes.add(n);
    }

    void partitionCommitted(long committedRows) {
        rows.add(committedRows);
        partitionsDone.incrementAndGet();
    }

    /** A partition copied into a transaction that commits later (a stream loaded in one transaction). */
    void partitionCopied(long copiedRows) {
        uncommittedRows.add(copiedRows);
    }

    /** The open transaction ended: its rows are either counted as committed next, or gone. */
    void transactionEnded() {
        uncommittedRows.reset();
    }

    public Snapshot snapshot() {
        return new Snapshot(stream.get(), rows.sum(), uncommittedRows.sum(), bytes.sum(), partitionsDone.get(),
                partitionsTotal.get(),
                estimatedBytes.get(), (System.nanoTime() - startedNanos.get()) / 1_000_000L,
                java.util.List.copyOf(new java.util.TreeSet<>(waitingFor)));
    }

    /**
     * A consistent-enough reading for a progress line. {@code uncommittedRows} are copied into a transaction that
     * has not committed yet. {@code waitingFor} lists the locks someone else holds that the stream waits for now.
     */
    public record Snapshot(String stream, long rows, long uncommittedRows, long bytes, int partitionsDone,
                           int partitionsTotal,
                           long estimatedBytes, long elapsedMillis, java.util.List<String> waitingFor) {
        public double megabytesPerSecond() {
            return elapsedMillis > 0 ? bytes / 1e3 / elapsedMillis : 0;
        }

        public double rowsPerSecond() {
            return elapsedMillis > 0 ? (rows + uncommittedRows) * 1e3 / elapsedMillis : 0;
        }

        /** Seconds left judging by bytes against the plan's estimate, or -1 when unknown. */
        public long etaSeconds() {
            if (estimatedBytes <= 0 || bytes <= 0 || bytes >= estimatedBytes) {
                return -1;
            }
            double rate = bytes / (double) Math.max(1, elapsedMillis);
            return (long) ((estimatedBytes - bytes) / rate / 1000);
        }
    }
}
