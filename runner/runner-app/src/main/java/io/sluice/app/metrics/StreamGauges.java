package io.sluice.app.metrics;

import io.sluice.core.run.report.PartitionReport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The live state behind one stream's gauges. Throughput counts committed rows and bytes over the time since the
 * stream started; when the stream ends it stays at the stream's final rate, so a last push still reports it.
 */
final class StreamGauges {
    private final AtomicInteger planned = new AtomicInteger();
    // A set, not a counter: a partition's attempt can end twice (retry backoff, then cancelled) without drift.
    private final Set<Integer> running = ConcurrentHashMap.newKeySet();
    private final LongAdder rows = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final AtomicLong startedNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong finishedNanos = new AtomicLong();

    void start(int partitions) {
        planned.set(partitions);
        startedNanos.set(System.nanoTime());
    }

    void attemptStarted(int partition) {
        running.add(partition);
    }

    void attemptEnded(int partition) {
        running.remove(partition);
    }

    void partitionFinished(PartitionReport report) {
        attemptEnded(report.index());
        if (report.state() == PartitionReport.State.DONE) {
            rows.add(report.rowsWritten());
            bytes.add(report.bytes());
        }
    }

    void finish() {
        running.clear();
        finishedNanos.set(System.nanoTime());
    }

    double planned() {
        return planned.get();
    }

    double running() {
        return running.size();
    }

    double rowsPerSecond() {
        return perSecond(rows.sum());
    }

    double bytesPerSecond() {
        return perSecond(bytes.sum());
    }

    private double perSecond(long amount) {
        long end = finishedNanos.get() != 0 ? finishedNanos.get() : System.nanoTime();
        double seconds = (end - startedNanos.get()) / 1e9;
        return seconds > 0 ? amount / seconds : 0;
    }
}
