package io.sluice.core.run;

import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriters;

import java.time.Instant;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One worker of a stream whose partitions commit one by one: it pulls partitions from the shared queue (largest
 * first) until the queue is empty or the stream stops, each in its own target transaction, retried through the
 * stream's attempt routine. It keeps its readers and writers (and so its connections) from one partition to the next.
 */
final class PartitionWorker implements Runnable {
    private final StreamWork work;
    private final SourceSession session;
    private final PartitionFeed feed;

    PartitionWorker(StreamWork work, SourceSession session, PartitionFeed feed) {
        this.work = requireNonNull(work, "work is null");
        this.session = requireNonNull(session, "session is null");
        this.feed = requireNonNull(feed, "feed is null");
    }

    @Override
    public void run() {
        try (PartitionReaders readers = session.openReaders(work.binding.projection());
             PartitionWriters writers = work.binding.load().openWriters(work.plan.targetColumns(),
                     work.plan.projection().format())) {
            Optional<PartitionPlan> partition;
            while (!work.stopping() && (partition = feed.next()).isPresent()) {
                try {
                    work.finished(copy(readers, writers, partition.get()));
                } finally {
                    feed.ended(partition.get());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            work.interrupt();
        }
    }

    private PartitionReport copy(PartitionReaders readers, PartitionWriters writers, PartitionPlan partition) {
        long started = System.nanoTime();
        Instant firstStart = Instant.now();
        long[] bytes = {0};
        PartitionAttempts.Outcome<StreamWork.Copied> outcome = work.attempts.run(new PartitionAttempts.Body<>() {
            @Override
            public StreamWork.Copied run(int attempt) throws ConnectorException {
                work.listener.partitionStarted(work.plan, partition, attempt);
                bytes[0] = 0;
                return work.copyOnce(readers, writers, partition, bytes, attempt, firstStart);
            }

            @Override
            public Optional<PartitionPlan> failedOn() {
                return Optional.of(partition);
            }

            @Override
            public Optional<PartitionPlan> mayHaveCommitted() {
                return Optional.of(partition);
            }
        });
        return switch (outcome) {
            case PartitionAttempts.Done<StreamWork.Copied> d -> {
                work.progress.partitionCommitted(d.value().written());
                yield work.report(partition, d.value(), bytes[0], d.attempts(), started);
            }
            case PartitionAttempts.CommittedDespite<StreamWork.Copied> c -> {
                work.progress.partitionCommitted(c.ledgerRow().rows());
                yield work.report(partition, new StreamWork.Copied(c.ledgerRow().rows() + c.ledgerRow().rejected(),
                        c.ledgerRow().rows(), c.ledgerRow().rejected(), java.util.List.of()), c.ledgerRow().bytes(),
                        c.attempts(), started);
            }
            case PartitionAttempts.Failed<StreamWork.Copied> f -> work.report(partition, PartitionReport.State.FAILED, 0, 0,
                    bytes[0], f.attempts(), started, f.error().getMessage());
            case PartitionAttempts.Cancelled<StreamWork.Copied> c -> work.report(partition, PartitionReport.State.CANCELLED, 0,
                    0, bytes[0], c.attempts(), started, work.stoppedWhy());
            case PartitionAttempts.Lost<StreamWork.Copied> l -> work.report(partition, PartitionReport.State.CANCELLED, 0, 0,
                    bytes[0], l.attempts(), started, l.why());
        };
    }
}
