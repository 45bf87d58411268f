package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunIdentity;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.WriterRejects;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * What the workers of one stream share: its plan and live binding, the listener and progress, the ledger, the
 * partition reports, and the stop that the first permanent failure or an interrupt sets (which cancels every read in
 * flight). Also the one way a partition is copied once ({@link #copyOnce}), whichever path the stream takes.
 */
final class StreamWork implements PartitionAttempts.StreamControl {
    final StreamPlan plan;
    final StreamBinding binding;
    final RunListener listener;
    final RunProgress progress;
    final StreamLedger ledger;
    final PartitionAttempts attempts;
    private final List<PartitionReport> reports = Collections.synchronizedList(new ArrayList<>());
    private final Set<PartitionReader> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicReference<SluiceException> firstError = new AtomicReference<>();
    private volatile boolean stopping;
    private volatile boolean interrupted;
    private RejectBudget budget;

    StreamWork(StreamPlan plan, StreamBinding binding, RunIdentity run, RunListener listener, RunProgress progress) {
        this.plan = requireNonNull(plan, "plan is null");
        this.binding = requireNonNull(binding, "binding is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.progress = requireNonNull(progress, "progress is null");
        this.ledger = new StreamLedger(plan, binding.ledger(), requireNonNull(run, "run is null"), listener);
        this.attempts = new PartitionAttempts(plan, ledger, listener, this);
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    @Override
    public void fail(SluiceException error) {
        if (firstError.compareAndSet(null, error)) {
            stop();
        }
    }

    /** Stops the stream from outside (Ctrl-C, SIGTERM): in-flight copies are cancelled and rolled back. */
    void interrupt() {
        interrupted = true;
        stop();
    }

    boolean interrupted() {
        return interrupted;
    }

    Optional<SluiceException> firstError() {
        return Optional.ofNullable(firstError.get());
    }

    private void stop() {
        stopping = true;
        for (PartitionReader reader : inFlight) {
            reader.cancel();
        }
    }

    String stoppedWhy() {
        return "cancelled: " + (interrupted ? "the run was interrupted" : "another partition failed");
    }

    /** Keeps a partition's report and tells the listener. */
    void finished(PartitionReport report) {
        reports.add(report);
        listener.partitionFinished(plan, report);
    }

    /** The reports so far, in plan order. */
    List<PartitionReport> reports() {
        List<PartitionReport> copy;
        synchronized (reports) {
            copy = new ArrayList<>(reports);
        }
        copy.sort((a, b) -> Integer.compare(a.index(), b.index()));
        return copy;
    }

    PartitionReport report(PartitionPlan partition, PartitionReport.State state, long read, long written, long bytes,
                           int attempts, long startedNanos, String error) {
        return new PartitionReport(partition.index(), partition.id(), partition.predicate(), state, read, written,
                bytes, attempts, Duration.ofNanos(System.nanoTime() - startedNanos), Optional.ofNullable(error));
    }

    /** The report of a partition copied: its rows read, loaded and set aside. */
    PartitionReport report(PartitionPlan partition, Copied copied, long bytes, int attempts, long startedNanos) {
        return new PartitionReport(partition.index(), partition.id(), partition.predicate(),
                PartitionReport.State.DONE, copied.read(), copied.written(), bytes, attempts,
                Duration.ofNanos(System.nanoTime() - startedNanos), Optional.empty(), copied.rejected(),
                copied.reasons());
    }

    /** One partition's copy: rows read, loaded, set aside (of those read), and the first reasons rows were set aside. */
    record Copied(long read, long written, long rejected, List<String> reasons) {
        Copied {
            reasons = List.copyOf(requireNonNull(reasons, "reasons is null"));
        }
    }

    /** The stream's {@code rejects:} limits across its partitions, made on first use (a resume counts its done ones). */
    private Optional<RejectBudget> rejectBudget() {
        if (plan.spec().rejects().isEmpty()) {
            return Optional.empty();
        }
        synchronized (this) {
            if (budget == null) {
                long[] before = ledger.doneTotals();
                budget = new RejectBudget(plan.name(), plan.spec().rejects().get(), before[1], before[0]);
            }
            return Optional.of(budget);
        }
    }

    private synchronized RejectBudget budget() {
        return budget;
    }

    /** Partitions copied in a transaction that then rolled back: what they set aside no longer counts. */
    void rolledBack(List<PartitionReport> copied) {
        RejectBudget limits = budget();
        if (limits != null) {
            for (PartitionReport report : copied) {
                limits.release(report.rowsRejected(), report.rowsWritten());
            }
        }
    }

    /** What the reader does with a bad value: set its row aside (rejects:), strip NULs, or fail as before. */
    private BadRows badRows(Optional<WriterRejects> writer, Optional<RejectBudget> budget, PartitionPlan partition) {
        BadRows.NulBytes nul = plan.spec().nulBytes();
        if (budget.isEmpty()) {
            return nul == BadRows.NulBytes.FAIL ? BadRows.FAIL : new BadRows() {
                @Override
                public boolean setsAside() {
                    return false;
                }

                @Override
                public NulBytes nulBytes() {
                    return nul;
                }

                @Override
                public void reject(RejectedRow row) throws ConnectorException {
                    BadRows.FAIL.reject(row);
                }
            };
        }
        RejectBudget limits = budget.get();
        return new BadRows() {
            private long count;

            @Override
            public boolean setsAside() {
                return true;
            }

            @Override
            public NulBytes nulBytes() {
                return nul;
            }

            @Override
            public void reject(RejectedRow row) throws ConnectorException {
                count++;
                if (limits.crossedBy(count)) { // no need to read the rest of a partition that cannot commit
                    throw new ConnectorException(ErrorKind.DATA, RunnerCode.RUN060, plan.where(partition) + ": "
                            + count + " rows set aside in this partition alone cross the stream's max-rows; it "
                            + "was rolled back (last: " + row.code() + " " + row.message() + ")", "look at the rows "
                            + "the source holds there, fix them or raise max-rows, then sluice run --resume");
                }
                writer.orElseThrow().reject(row); // present with a budget: copyOnce asked for it
            }
        };
    }

    /**
     * One attempt at one partition: returns {rowsRead, rowsWritten}. The writer's transaction commits only if the
     * counts agree, and agree with the partition's exact size where the source knows it; with a ledger its DONE row
     * commits in the same transaction.
     */
    Copied copyOnce(PartitionReaders readers, PartitionWriters writers, PartitionPlan partition, long[] bytes,
                    int attempt, Instant firstStart) throws ConnectorException {
        PartitionWriter writer = writers.open();
        PartitionReader reader = null;
        boolean committed = false;
        boolean reserved = false;
        long rejected = 0;
        long written = 0;
        try {
            Optional<RejectBudget> budget = rejectBudget();
            Optional<WriterRejects> rejects = Optional.empty();
            if (budget.isPresent()) {
                rejects = Optional.of(writer.rejects().orElseThrow(() -> new ConnectorException(ErrorKind.FAILED,
                        SpiCode.SPI011, binding.target().describe() + " sets no rows aside",
                        "remove rejects: from the stream")));
                rejects.get().rejectsOf(new RejectedRow.Origin(ledger.key().runId(), plan.name(), partition.id()));
            }
            reader = readers.open(binding.partition(partition));
            inFlight.add(reader);
            if (stopping) {
                throw new ConnectorException(ErrorKind.FAILED, RunnerCode.RUN010, "stopped before it started", null);
            }
            long read = reader.transferTo(new CopySink() {
                @Override
                public void write(byte[] buffer, int offset, int length) throws ConnectorException {
                    writer.write(buffer, offset, length);
                    bytes[0] += length;
                    progress.addBytes(length);
                }

                @Override
                public void writeRows(byte[] buffer, int offset, int length, int rows) throws ConnectorException {
                    writer.writeRows(buffer, offset, length, rows);
                    bytes[0] += length;
                    progress.addBytes(length);
                }
            }, badRows(rejects, budget, partition));
            written = writer.finish();
            long refused = writer.refusedRows();
            rejected = writer.rejectedRows();
            if (read != written + refused) {
                throw new SluiceException(ErrorKind.VERIFICATION, RunnerCode.RUN020, plan.where(partition) + ": read "
                        + read + " rows from the source but the target took " + written
                        + (refused > 0 ? " and set " + refused + " aside" : "")
                        + "; the partition was rolled back", "report this as a bug with the plan (sluice plan)");
            }
            read += rejected - refused; // the rows the reader set aside were read too
            OptionalLong exact = partition.exactRows();
            if (exact.isPresent() && exact.getAsLong() != read) {
                throw new SluiceException(ErrorKind.FAILED, RunnerCode.RUN021, plan.where(partition) + ": the source said "
                        + "at plan time that the partition holds " + exact.getAsLong() + " rows, but its reader "
                        + "returned " + read + " without an error; the partition was rolled back",
                        "check that the source did not change since the plan (a file rewritten in place), then "
                                + "sluice run --resume; if it did not, report it as a bug with the plan");
            }
            if (budget.isPresent()) {
                budget.get().reserve(plan.where(partition), rejected, written);
                reserved = true;
            }
            Optional<LedgerWork<Void>> done = ledger.markingDone(partition, written, bytes[0], attempt, firstStart,
                    rejected);
            if (done.isPresent()) {
                writer.ledgeredCommit().orElseThrow(() -> new ConnectorException(ErrorKind.FAILED, SpiCode.SPI003,
                        binding.target().describe() + " keeps no run ledger", "set ledger: off in the spec"))
                        .commit(done.get());
            } else {
                writer.commit();
            }
            committed = true;
            return new Copied(read, written, rejected, writer.rejectSample());
        } finally {
            if (reserved && !committed) {
                budget().release(rejected, written);
            }
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
}
