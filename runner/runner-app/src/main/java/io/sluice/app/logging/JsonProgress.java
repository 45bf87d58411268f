package io.sluice.app.logging;

import io.sluice.core.run.RunProgress;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Progress in JSON mode: a {@code progress} event every interval with the running stream's figures, never a live
 * bar (a JSON log is read by machines even when a person started it on a terminal).
 */
public final class JsonProgress implements AutoCloseable {
    private final RunProgress progress;
    private final JsonLog log;
    private final ScheduledExecutorService timer;

    public JsonProgress(RunProgress progress, JsonLog log, Duration interval) {
        this.progress = requireNonNull(progress, "progress is null");
        this.log = requireNonNull(log, "log is null");
        requireNonNull(interval, "interval is null");
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("sluice-progress").factory());
        timer.scheduleAtFixedRate(this::report, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void report() {
        RunProgress.Snapshot s = progress.snapshot();
        if (s.stream().isEmpty()) {
            return;
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("rows", s.rows());
        fields.put("uncommitted-rows", s.uncommittedRows());
        fields.put("bytes", s.bytes());
        fields.put("partitions-done", s.partitionsDone());
        fields.put("partitions-total", s.partitionsTotal());
        fields.put("rows-per-second", s.rowsPerSecond());
        fields.put("megabytes-per-second", s.megabytesPerSecond());
        fields.put("eta-seconds", s.etaSeconds() >= 0 ? s.etaSeconds() : null);
        log.event(JsonLog.Level.INFO, "progress", s.stream(), null, s.stream() + ": " + s.rows()
                + " rows committed, partitions " + s.partitionsDone() + "/" + s.partitionsTotal(), fields);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
