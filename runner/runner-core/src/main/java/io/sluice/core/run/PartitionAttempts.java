package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.Backoff;
import io.sluice.core.run.context.RunListener;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * The one attempt/retry/cancel routine of a stream, for a single partition and for a whole one-transaction load
 * alike: runs a body until it succeeds, retries what is transient with back-off, stops when the stream stops, and
 * turns every throwable into an outcome. Nothing a body throws escapes: an unexpected {@link RuntimeException} or
 * {@link Error} (a bug in an encoder or a driver) fails the attempt with RUN030 and is never retried, since its cause
 * is not a passing fault. Every attempt that does not succeed is recorded in the ledger.
 */
final class PartitionAttempts {
    /** What one attempt does; it commits its work itself and throws when it did not. */
    interface Body<T> {
        T run(int attempt) throws ConnectorException;

        /** The partition the last attempt was working on when it failed; empty when it failed outside any. */
        Optional<PartitionPlan> failedOn();

        /** A partition whose commit may have reached the server although the attempt failed (its answer lost). */
        Optional<PartitionPlan> mayHaveCommitted();
    }

    sealed interface Outcome<T> {
        int attempts();
    }

    record Done<T>(T value, int attempts) implements Outcome<T> {
    }

    /** The attempt failed, but the ledger says its commit went through: done, and must not be copied again. */
    record CommittedDespite<T>(LedgerPartition ledgerRow, int attempts) implements Outcome<T> {
    }

    /** A permanent failure; the stream has already been failed with {@code error}. */
    record Failed<T>(SluiceException error, Optional<PartitionPlan> failedOn, int attempts) implements Outcome<T> {
    }

    /**
     * In a joined run, another process took the partition over (this one's lease ended) or committed it first: this
     * attempt's rows were rolled back, the other process's count, and the stream goes on.
     */
    record Lost<T>(Optional<PartitionPlan> failedOn, int attempts, String why) implements Outcome<T> {
    }

    /** The stream stopped (another partition failed, or the run was interrupted) while this one ran or waited. */
    record Cancelled<T>(Optional<PartitionPlan> failedOn, int attempts) implements Outcome<T> {
    }

    /** What the routine needs of its stream: whether it is stopping, and how to fail it. */
    interface StreamControl {
        boolean stopping();

        void fail(SluiceException error);
    }

    private final StreamPlan plan;
    private final StreamLedger ledger;
    private final RunListener listener;
    private final StreamControl stream;
    private final Backoff backoff;
    private final AtomicInteger retries = new AtomicInteger();

    PartitionAttempts(StreamPlan plan, StreamLedger ledger, RunListener listener, StreamControl stream) {
        this.plan = requireNonNull(plan, "plan is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.stream = requireNonNull(stream, "stream is null");
        this.backoff = new Backoff(plan.spec().retry());
    }

    int retries() {
        return retries.get();
    }

    <T> Outcome<T> run(Body<T> body) {
        requireNonNull(body, "body is null");
        int attempt = 0;
        while (true) {
            attempt++;
            Instant attemptStart = Instant.now();
            SluiceException error;
            boolean retryable;
            try {
                return new Done<>(body.run(attempt), attempt);
            } catch (ConnectorException e) {
                error = SluiceException.from(e, where(body.failedOn(), attempt));
                retryable = e.kind().isRetryable();
            } catch (SluiceException e) {
                error = e;
                retryable = false;
            } catch (RuntimeException | Error e) {
                error = SluiceException.unexpected(e, where(body.failedOn(), attempt));
                retryable = false;
            }
            Optional<PartitionPlan> failedOn = body.failedOn();
            if (stream.stopping()) {
                record(failedOn, attempt, attemptStart, AttemptRecord.Outcome.CANCELLED, null);
                return new Cancelled<>(failedOn, attempt);
            }
            Optional<LedgerPartition> committed = body.mayHaveCommitted().flatMap(ledger::committedDespite);
            if (committed.isPresent()) {
                return new CommittedDespite<>(committed.get(), attempt);
            }
            Optional<String> lostTo = failedOn.flatMap(ledger::lostTo);
            if (lostTo.isPresent()) {
                // A joined process that was silent too long: its partition is another's now, and copying it again
                // would only meet that one's rows.
                record(failedOn, attempt, attemptStart, AttemptRecord.Outcome.CANCELLED, error);
                return new Lost<>(failedOn, attempt, "partition " + failedOn.get().id() + " is " + lostTo.get()
                        + " now (this process's lease ended): " + error.getMessage());
            }
            if (retryable && attempt < plan.spec().retry().maxAttempts()) {
                Duration wait = backoff.before(attempt + 1);
                retries.incrementAndGet();
                record(failedOn, attempt, attemptStart, AttemptRecord.Outcome.RETRIED, error);
                if (failedOn.isPresent()) {
                    listener.partitionRetrying(plan, failedOn.get(), attempt, error, wait);
                }
                if (!pause(wait)) {
                    return new Cancelled<>(failedOn, attempt);
                }
                continue;
            }
            if (ledger.join().isPresent() && (error.code().equals(RunnerCode.LEDGER005.name())
                    || error.code().equals(RunnerCode.LEDGER002.name()))) {
                record(failedOn, attempt, attemptStart, AttemptRecord.Outcome.CANCELLED, error);
                return new Lost<>(failedOn, attempt, error.getMessage());
            }
            stream.fail(error);
            record(failedOn, attempt, attemptStart, AttemptRecord.Outcome.FAILED, error);
            return new Failed<>(error, failedOn, attempt);
        }
    }

    /**
     * A throwable no connector declared: a bug, not a data or server problem, so it is named with its class. An
     * {@link Error} fails the stream like any other failure, which stops the other workers too.
     */
    private String where(Optional<PartitionPlan> partition, int attempt) {
        String retry = attempt > 1 ? ", attempt " + attempt : "";
        return partition.map(p -> plan.where(p) + retry)
                .orElse(plan.where() + ", committing the stream's transaction" + retry);
    }

    private void record(Optional<PartitionPlan> partition, int attempt, Instant startedAt,
                        AttemptRecord.Outcome outcome, SluiceException error) {
        partition.ifPresent(p -> ledger.recordAttempt(p, attempt, startedAt, outcome, Optional.ofNullable(error)));
    }

    /** Waits out a back-off; false when the stream stopped meanwhile. */
    private boolean pause(Duration wait) {
        return Backoff.pause(wait, stream::stopping);
    }
}
