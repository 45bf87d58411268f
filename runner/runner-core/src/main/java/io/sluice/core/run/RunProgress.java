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
    /** Across streams: the streams copying now, for the progress line (not every stream ever started). */
    private final java.util.Set<String> running = new java.util.concurrent.ConcurrentSkipListSet<>();

    private volatile boolean acrossStreams;

    /**
     * Several streams run at once: the totals are the whole plan's from the start ({@code partitions},
     * {@code estimatedBytes}), so the rate and the time left speak of the run, not of the streams started so far.
     */
    void acrossStreams(int partitions, long estimatedBytes) {
        acrossStreams = true;
        partitionsTotal.set(partitions);
        this.estimatedBytes.set(estimatedBytes);
    }

    void startStream(String name, int partitions, long estimatedBytes) {
        if (acrossStreams) {
            running.add(name);
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

    /**
     * A stream ended: across streams it leaves the progress line, and its estimate gives way to the bytes it really
     * copied (an estimate of many small tables is far above what they hold), so the time left stays honest.
     */
    void finishStream(String name, long estimatedBytes, long copiedBytes) {
        if (acrossStreams) {
            running.remove(name);
            this.estimatedBytes.addAndGet(copiedBytes - estimatedBytes);
        }
    }

    /** What the progress line names: the stream, or across streams the few running now and how many more. */
    private String streamLabel() {
        if (!acrossStreams) {
            return stream.get();
        }
        java.util.List<String> now = java.util.List.copyOf(running);
        return now.size() <= 3 ? String.join(", ", now)
                : String.join(", ", now.subList(0, 3)) + " +" + (now.size() - 3) + " more";
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
        return new Snapshot(streamLabel(), rows.sum(), uncommittedRows.sum(), bytes.sum(), partitionsDone.get(),
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
