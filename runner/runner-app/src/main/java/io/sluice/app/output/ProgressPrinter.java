package io.sluice.app.output;

import io.sluice.core.run.RunProgress;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * Shows progress while a run goes: a live bar redrawn in place on a terminal, or one log line every interval when
 * output goes to a file or a CI log (Airflow, Jenkins), so those logs stay readable.
 */
public final class ProgressPrinter implements AutoCloseable {
    private static final int BAR_WIDTH = 24;

    private final RunProgress progress;
    private final PrintWriter err;
    private final boolean live;
    private final Duration interval;
    private final Thread thread;
    private volatile boolean running = true;
    /** The bytes copied at the last change, and when it was: a run that stops moving says so. */
    private long lastBytes = -1;
    private long lastChangeNanos = System.nanoTime();
    /** How long without a byte copied (and no lock waited for) before the line says a read may be stalled. */
    static final Duration STALL = Duration.ofSeconds(60);

    public ProgressPrinter(RunProgress progress, PrintWriter err, boolean live, Duration interval) {
        this.progress = requireNonNull(progress, "progress is null");
        this.err = requireNonNull(err, "err is null");
        this.live = live;
        this.interval = live ? Duration.ofMillis(250) : requireNonNull(interval, "interval is null");
        this.thread = Thread.ofPlatform().daemon().name("sluice-progress").start(this::loop);
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(interval);
            } catch (InterruptedException e) {
                return;
            }
            if (running) {
                print();
            }
        }
    }

    private void print() {
        RunProgress.Snapshot s = progress.snapshot();
        if (s.stream().isEmpty()) {
            return;
        }
        String eta = s.etaSeconds() >= 0 ? ", ETA " + s.etaSeconds() + " s" : "";
        long now = System.nanoTime();
        if (s.bytes() != lastBytes) {
            lastBytes = s.bytes();
            lastChangeNanos = now;
        }
        long stillSeconds = Duration.ofNanos(now - lastChangeNanos).toSeconds();
        String stalled = s.waitingFor().isEmpty() && stillSeconds >= STALL.toSeconds()
                ? ", no progress for " + stillSeconds + " s: a read may be stalled (the storage, the network); "
                + "SIGTERM stops the run, rolling back what is in flight" : "";
        String figures = s.stream() + ": " + Numbers.count(s.rows()) + " rows committed, "
                + (s.uncommittedRows() > 0 ? Numbers.count(s.uncommittedRows()) + " copied to commit at the end, " : "")
                + Numbers.megabytes(s.bytes()) + String.format(Locale.ROOT, " (%.1f MB/s", s.megabytesPerSecond())
                + ", " + Numbers.rate(s.rowsPerSecond(), "rows") + "), partitions " + s.partitionsDone() + "/"
                + s.partitionsTotal() + eta
                + (s.waitingFor().isEmpty() ? "" : ", waiting for " + String.join("; ", s.waitingFor())) + stalled;
        synchronized (err) {
            if (live) {
                double done = s.estimatedBytes() > 0 ? Math.min(1, s.bytes() / (double) s.estimatedBytes())
                        : s.partitionsTotal() > 0 ? s.partitionsDone() / (double) s.partitionsTotal() : 0;
                int filled = (int) Math.round(done * BAR_WIDTH);
                err.print("\r[" + "#".repeat(filled) + " ".repeat(BAR_WIDTH - filled) + "] "
                        + String.format(Locale.ROOT, "%3.0f%% ", done * 100) + figures + "\u001B[K");
            } else {
                err.println("progress " + figures);
            }
            err.flush();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        if (live) {
            synchronized (err) {
                err.print("\r\u001B[K");
                err.flush();
            }
        }
    }
}
