package io.sluice.core.run.report;

import io.sluice.core.SluiceException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What happened to one stream: totals, per-partition reports, the verification and the first error, if any.
 *
 * @param deletedRows          rows the load deleted from the target after the copy (a merge's delete-missing)
 * @param partitionsDoneBefore partitions a resumed run found done in the ledger and skipped
 * @param schemaChanges        what the load changed in the target table's shape ({@code schema-changes}), one line
 *                             each, e.g. {@code added column b numeric to public.t}
 */
public record StreamReport(
        String name,
        State state,
        int degree,
        long rows,
        long bytes,
        Duration duration,
        List<PartitionReport> partitions,
        int partitionsPlanned,
        int retries,
        Optional<SluiceException> error,
        Verification verification,
        long deletedRows,
        int partitionsDoneBefore,
        List<String> schemaChanges) {
    public enum State { DONE, FAILED, INTERRUPTED, SKIPPED }

    public StreamReport {
        requireNonNull(name, "name is null");
        requireNonNull(state, "state is null");
        requireNonNull(duration, "duration is null");
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        requireNonNull(error, "error is null");
        requireNonNull(verification, "verification is null");
        schemaChanges = List.copyOf(requireNonNull(schemaChanges, "schemaChanges is null"));
    }

    /** A report of a stream that changed nothing in its target's shape. */
    public StreamReport(String name, State state, int degree, long rows, long bytes, Duration duration,
                        List<PartitionReport> partitions, int partitionsPlanned, int retries,
                        Optional<SluiceException> error, Verification verification, long deletedRows,
                        int partitionsDoneBefore) {
        this(name, state, degree, rows, bytes, duration, partitions, partitionsPlanned, retries, error, verification,
                deletedRows, partitionsDoneBefore, List.of());
    }

    public long partitionsDone() {
        return partitions.stream().filter(p -> p.state() == PartitionReport.State.DONE).count();
    }

    public long partitionsFailed() {
        return partitions.stream().filter(p -> p.state() == PartitionReport.State.FAILED).count();
    }

    /** True when every committed partition wrote exactly the rows it read, but those it set aside. */
    public boolean rowCountsMatch() {
        return partitions.stream().filter(p -> p.state() == PartitionReport.State.DONE)
                .allMatch(p -> p.rowsRead() == p.rowsWritten() + p.rowsRejected());
    }

    /** Rows the committed partitions set aside ({@code rejects:}). */
    public long rowsRejected() {
        return partitions.stream().filter(p -> p.state() == PartitionReport.State.DONE)
                .mapToLong(PartitionReport::rowsRejected).sum();
    }

    /** The first few reasons rows were set aside, from the first partitions that set any aside. */
    public List<String> rejectReasons() {
        return partitions.stream().filter(p -> p.state() == PartitionReport.State.DONE)
                .flatMap(p -> p.rejectReasons().stream()).limit(3).toList();
    }

    public double rowsPerSecond() {
        double seconds = duration.toNanos() / 1e9;
        return seconds > 0 ? rows / seconds : 0;
    }

    public double megabytesPerSecond() {
        double seconds = duration.toNanos() / 1e9;
        return seconds > 0 ? bytes / 1e6 / seconds : 0;
    }
}
