package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.ClaimLedger;
import io.sluice.core.ledger.JoinedProgress;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.run.context.Backoff;
import io.sluice.core.run.context.Join;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.StreamKey;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The partitions of a joined run, claimed one at a time from the ledger: the first planned one no live lease holds,
 * whoever planned it (a partition planned by another process is rebuilt from its checkpoint). While this process
 * copies, a heartbeat renews its leases every third of the lease; a process that stops renewing loses its partitions
 * to the others, and its late commit is refused (LEDGER005); its sessions are ended by the process taking over, or by
 * any process that finds its partitions still locked after the lease (paused inside a ledger transaction). When
 * nothing is claimable but partitions are held by other processes, it waits for them to finish or for their leases
 * to end; it runs dry only when every partition is done. A permanent failure is told to the other processes through the ledger (mark {@value #FAILED_MARK}): they
 * claim nothing more, finish what they copy, and end with that cause.
 */
final class LedgerFeed implements PartitionFeed, AutoCloseable {
    static final String FAILED_MARK = "failed";
    private static final Duration LONGEST_WAIT = Duration.ofSeconds(1);

    private final StreamWork work;
    private final Ledger ledger;
    private final StreamKey key;
    private final Join join;
    private final Map<String, PartitionPlan> planned = new LinkedHashMap<>();
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    /** Processes whose sessions this one ended after taking over their partitions. */
    private final Set<String> ended = ConcurrentHashMap.newKeySet();
    private final Thread heartbeat;
    private volatile SluiceException failedElsewhere;
    private volatile boolean closed;
    private volatile long lastStallCheck = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    /** Passing ledger faults in a row while claiming; reset by a claim that answers. */
    private final java.util.concurrent.atomic.AtomicInteger ledgerFaults = new java.util.concurrent.atomic.AtomicInteger();
    private final Backoff backoff;
    /** This process's failure was told to the others (once). */
    private final java.util.concurrent.atomic.AtomicBoolean told = new java.util.concurrent.atomic.AtomicBoolean();

    LedgerFeed(StreamWork work, Ledger ledger, Join join) {
        this.work = requireNonNull(work, "work is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.key = work.ledger.key();
        this.join = requireNonNull(join, "join is null");
        this.backoff = new Backoff(work.plan.spec().retry());
        work.plan.allPartitions().forEach(p -> planned.put(p.id(), p));
        this.heartbeat = Thread.ofPlatform().daemon().name("sluice-lease-" + work.plan.name()).unstarted(this::beat);
        heartbeat.start();
    }

    @Override
    public Optional<PartitionPlan> next() throws InterruptedException {
        while (!work.stopping() && !closed) {
            try {
                String failure = ledger.marks(key).getOrDefault(FAILED_MARK, "");
                if (!failure.isEmpty()) {
                    failedElsewhere = new SluiceException(ErrorKind.FAILED, RunnerCode.RUN050, work.plan.where()
                            + ": another process of run " + key.runId() + " failed, so this one claims no more "
                            + "partitions: " + failure, "fix the cause, then run the processes again with --join "
                            + "(or --resume): done partitions stay done");
                    return Optional.empty();
                }
                Optional<ClaimLedger.Claim> claimed = ledger.claims().claimNext(key, join.holder(), join.lease());
                ledgerFaults.set(0);
                if (claimed.isPresent()) {
                    claimed.get().takenFrom().ifPresent(this::endAbandoned);
                    held.add(claimed.get().partition().partitionId());
                    return Optional.of(restore(claimed.get().partition()));
                }
                JoinedProgress progress = ledger.claims().progress(key);
                if (progress.allDone()) {
                    return Optional.empty();
                }
                if (progress.done() + progress.held() < progress.planned()) {
                    endStalledLocks(); // a partition no live lease holds, yet not claimable: locked by someone
                }
                // Held by others: wait for their commits, or for a lease to end (then its partition is ours to take).
                Duration wait = progress.nextLeaseEnd().filter(d -> d.compareTo(LONGEST_WAIT) < 0)
                        .orElse(LONGEST_WAIT);
                TimeUnit.MILLISECONDS.sleep(Math.max(50, wait.toMillis()));
            } catch (ConnectorException e) {
                // A passing fault (this process's ledger session ended by another one that took over while this
                // one was paused, a restart) is retried as a partition's would be: a claim rolled back is claimed
                // again, one whose commit answer was lost is this process's lease, which ends if nobody copies it.
                int faults = ledgerFaults.incrementAndGet();
                if (e.kind().isRetryable() && faults < work.plan.spec().retry().maxAttempts()) {
                    work.listener.ledgerProblem(work.plan, "claiming a partition failed (attempt " + faults
                            + "), trying again: " + work.ledger.redact(String.valueOf(e.getMessage())));
                    TimeUnit.MILLISECONDS.sleep(backoff.before(faults + 1).toMillis());
                    continue;
                }
                work.fail(SluiceException.from(e, work.plan.where() + ", claiming a partition"));
                return Optional.empty();
            } catch (SluiceException e) { // a claimed partition this process cannot rebuild
                work.fail(e);
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * Taken over from a silent process: its sessions on the target end first, so rows it holds uncommitted (a paused
     * COPY) do not block this process's copy of them. Once per holder; a failure is told, not fatal.
     */
    private void endAbandoned(String holder) {
        if (!ended.add(holder)) {
            return;
        }
        try {
            work.binding.load().endAbandoned(holder);
        } catch (ConnectorException | RuntimeException e) {
            work.listener.ledgerProblem(work.plan, "could not end the sessions of " + holder + ", whose partitions "
                    + "this process took over: " + work.ledger.redact(String.valueOf(e.getMessage())));
        }
    }

    /**
     * Ends the sessions of other processes that keep partitions locked after their leases ended (paused inside a
     * ledger transaction): at most once a second, and only locks older than a lease, so a live process's claim
     * under way is left alone.
     */
    private void endStalledLocks() {
        long now = System.nanoTime();
        if (now - lastStallCheck < TimeUnit.SECONDS.toNanos(1)) {
            return;
        }
        lastStallCheck = now;
        try {
            int ended = ledger.claims().endStalledLocks(key, join.holder(), join.lease());
            if (ended > 0) {
                work.listener.ledgerProblem(work.plan, "ended " + ended + " session(s) of another process of run "
                        + key.runId() + " that kept partitions locked after their lease ended (a paused or cut-off "
                        + "process); their partitions are claimed again");
            }
        } catch (ConnectorException | RuntimeException e) {
            work.listener.ledgerProblem(work.plan, "could not end the sessions keeping partitions locked: "
                    + work.ledger.redact(String.valueOf(e.getMessage())));
        }
    }

    private PartitionPlan restore(LedgerPartition claimed) {
        return RunResumer.restorePartition(work.plan, work.binding, claimed, planned).orElseThrow(() ->
                new SluiceException(ErrorKind.FAILED, RunnerCode.PLAN002, work.plan.where() + ": partition "
                        + claimed.partitionId() + " (" + claimed.predicate() + ") was planned by another process "
                        + "and the source cannot rebuild it here", "join with the same spec and source on every "
                        + "process"));
    }

    @Override
    public void ended(PartitionPlan partition) {
        // A failure is told before the partition's lease is let go: a process that would take the partition over
        // once the lease ends reads the mark first and stops with this cause, instead of meeting the failure again.
        work.firstError().filter(e -> failedElsewhere == null).ifPresent(this::tellOthers);
        held.remove(partition.id());
    }

    /** The failure another process told, when that is why this one stopped claiming. */
    Optional<SluiceException> failedElsewhere() {
        return Optional.ofNullable(failedElsewhere);
    }

    /** Tells the other processes this one failed, so they stop claiming. */
    void tellOthers(SluiceException error) {
        if (told.getAndSet(true)) {
            return;
        }
        try {
            ledger.mark(key, FAILED_MARK, join.holder() + ": " + work.ledger.redact(error.getMessage()));
        } catch (ConnectorException | RuntimeException e) {
            work.listener.ledgerProblem(work.plan, "could not tell the other processes of the failure: "
                    + e.getMessage());
        }
    }

    /** Whether every partition of the run is done, by any process. */
    boolean allDone() throws ConnectorException {
        return ledger.claims().progress(key).allDone();
    }

    private void beat() {
        long every = Math.max(100, join.lease().toMillis() / 3);
        while (!closed) {
            try {
                TimeUnit.MILLISECONDS.sleep(every);
                ledger.claims().renew(key, join.holder(), List.copyOf(held), join.lease());
            } catch (InterruptedException e) {
                return;
            } catch (ConnectorException | RuntimeException e) {
                // A missed renewal is not fatal: if the lease ends, the commit is refused and another process copies.
                work.listener.ledgerProblem(work.plan, "could not renew the leases of " + held + ": "
                        + e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        heartbeat.interrupt();
    }
}
