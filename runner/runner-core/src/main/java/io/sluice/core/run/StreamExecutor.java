package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.PartitionReader;
import io.sluice.spi.PartitionWriter;
import io.sluice.spi.Source;
import io.sluice.spi.SourceSession;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Runs one stream: prepares the target, opens the source session (snapshot), and lets {@code degree} workers pull
 * partitions from a queue in plan order (largest first). Each partition is one reader piped into one writer in its
 * own target transaction. The first permanent failure stops the other workers promptly; their cancellations are not
 * reported as errors of their own.
 */
final class StreamExecutor {
    private final StreamPlan plan;
    private final RunListener listener;
    private final RunProgress progress;
    private final Backoff backoff;
    private final Queue<PartitionPlan> queue;
    private final List<PartitionReport> reports = Collections.synchronizedList(new ArrayList<>());
    private final Set<PartitionReader> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicReference<SluiceException> firstError = new AtomicReference<>();
    private final AtomicInteger retries = new AtomicInteger();
    private volatile boolean stopping;
    private volatile boolean interrupted;

    StreamExecutor(StreamPlan plan, RunListener listener, RunProgress progress) {
        this.plan = requireNonNull(plan, "plan is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.progress = requireNonNull(progress, "progress is null");
        this.backoff = new Backoff(plan.spec().retry());
        this.queue = new ConcurrentLinkedQueue<>(plan.partitions());
    }

    StreamReport execute() {
        long started = System.nanoTime();
        progress.startStream(plan.name(), plan.partitions().size(), plan.estimatedBytes());
        try {
            plan.target().prepare(plan.spec().loadMode());
            try (SourceSession session = plan.source().openSession(plan.spec().consistency(), plan.degree())) {
                listener.streamStarted(plan, session.snapshotMode());
                runWorkers(session);
            }
        } catch (ConnectorException e) {
            fail(SluiceException.from(e, where()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupt();
        }
        List<PartitionReport> done = new ArrayList<>(reports);
        done.sort((a, b) -> Integer.compare(a.index(), b.index()));
        long rows = done.stream().filter(r -> r.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::rowsWritten).sum();
        long bytes = done.stream().filter(r -> r.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::bytes).sum();
        StreamReport.State state = interrupted ? StreamReport.State.INTERRUPTED
                : firstError.get() != null ? StreamReport.State.FAILED : StreamReport.State.DONE;
        StreamReport report = new StreamReport(plan.name(), state, plan.degree(), rows, bytes,
                Duration.ofNanos(System.nanoTime() - started), done, plan.partitions().size(), retries.get(),
                Optional.ofNullable(firstError.get()));
        listener.streamFinished(plan, report);
        return report;
    }

    /** Stops the stream from outside (Ctrl-C, SIGTERM): in-flight copies are cancelled and rolled back. */
    void interrupt() {
        interrupted = true;
        stop();
    }

    private void runWorkers(SourceSession session) throws InterruptedException {
        int workers = Math.min(plan.degree(), Math.max(1, plan.partitions().size()));
        ThreadFactory threads = plan.source().readerThreads() == Source.ThreadModel.PLATFORM
                ? Thread.ofPlatform().name("sluice-" + plan.name() + "-", 0).daemon().factory()
                : Thread.ofVirtual().name("sluice-" + plan.name() + "-", 0).factory();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Thread thread = threads.newThread(() -> work(session));
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
    }

    private void work(SourceSession session) {
        PartitionPlan partition;
        while (!stopping && (partition = queue.poll()) != null) {
            reports.add(copyWithRetries(session, partition));
        }
    }

    private PartitionReport copyWithRetries(SourceSession session, PartitionPlan partition) {
        long started = System.nanoTime();
        int attempt = 0;
        while (true) {
            attempt++;
            listener.partitionStarted(plan, partition, attempt);
            long[] bytes = {0};
            try {
                long[] counts = copyOnce(session, partition, bytes);
                progress.partitionCommitted(counts[1]);
                PartitionReport report = report(partition, PartitionReport.State.DONE, counts[0], counts[1],
                        bytes[0], attempt, started, null);
                listener.partitionFinished(plan, report);
                return report;
            } catch (ConnectorException e) {
                SluiceException error = SluiceException.from(e, where(partition, attempt));
                if (stopping) {
                    return finishCancelled(partition, attempt, started, bytes[0]);
                }
                if (e.kind().isRetryable() && attempt < plan.spec().retry().maxAttempts()) {
                    Duration wait = backoff.before(attempt + 1);
                    retries.incrementAndGet();
                    listener.partitionRetrying(plan, partition, attempt, error, wait);
                    if (!pause(wait)) {
                        return finishCancelled(partition, attempt, started, bytes[0]);
                    }
                    continue;
                }
                fail(error);
                PartitionReport report = report(partition, PartitionReport.State.FAILED, 0, 0, bytes[0], attempt,
                        started, error.getMessage());
                listener.partitionFinished(plan, report);
                return report;
            } catch (SluiceException e) {
                fail(e);
                PartitionReport report = report(partition, PartitionReport.State.FAILED, 0, 0, bytes[0], attempt,
                        started, e.getMessage());
                listener.partitionFinished(plan, report);
                return report;
            }
        }
    }

    /** One attempt: returns {rowsRead, rowsWritten}. The writer's transaction commits only if the counts agree. */
    private long[] copyOnce(SourceSession session, PartitionPlan partition, long[] bytes) throws ConnectorException {
        PartitionWriter writer = plan.target().openWriter(plan.targetColumns(), plan.projection().format());
        PartitionReader reader = null;
        boolean committed = false;
        try {
            reader = session.openReader(partition.partition(), plan.projection());
            inFlight.add(reader);
            if (stopping) {
                throw new ConnectorException(ErrorKind.FAILED, "RUN010", "stopped before it started", null);
            }
            long read = reader.transferTo((buffer, offset, length) -> {
                writer.write(buffer, offset, length);
                bytes[0] += length;
                progress.addBytes(length);
            });
            long written = writer.finish();
            if (read != written) {
                throw new SluiceException(ErrorKind.VERIFICATION, "RUN020", where(partition, 1) + ": read "
                        + read + " rows from the source but the target took " + written
                        + "; the partition was rolled back", "report this as a bug with the plan (sluice plan)");
            }
            writer.commit();
            committed = true;
            return new long[] {read, written};
        } finally {
            if (reader != null) {
                inFlight.remove(reader);
                reader.close();
            }
            if (!committed) {
                writer.abort();
            }
            writer.close();
        }
    }

    private boolean pause(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (!stopping) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private void fail(SluiceException error) {
        if (firstError.compareAndSet(null, error)) {
            stop();
        }
    }

    private void stop() {
        stopping = true;
        for (PartitionReader reader : inFlight) {
            reader.cancel();
        }
    }

    private PartitionReport finishCancelled(PartitionPlan partition, int attempt, long started, long bytes) {
        PartitionReport report = report(partition, PartitionReport.State.CANCELLED, 0, 0, bytes, attempt, started,
                "cancelled: " + (interrupted ? "the run was interrupted" : "another partition failed"));
        listener.partitionFinished(plan, report);
        return report;
    }

    private PartitionReport report(PartitionPlan partition, PartitionReport.State state, long read, long written,
                                   long bytes, int attempts, long startedNanos, String error) {
        return new PartitionReport(partition.index(), partition.partition().id(), partition.partition().predicate(),
                state, read, written, bytes, attempts, Duration.ofNanos(System.nanoTime() - startedNanos),
                Optional.ofNullable(error));
    }

    private String where() {
        return "stream '" + plan.name() + "'";
    }

    private String where(PartitionPlan partition, int attempt) {
        return where() + ", partition " + (partition.index() + 1) + "/" + plan.partitions().size()
                + " (" + partition.partition().predicate() + ")" + (attempt > 1 ? ", attempt " + attempt : "");
    }
}
