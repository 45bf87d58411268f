package io.sluice.core.plan;

import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.read.RowWindow;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadPlan;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What was derived for one stream, as plain data that can be printed, compared and stored: the column mapping with
 * how each column is read, the partitions in run order, and the statements each side runs. It holds no connection;
 * {@link StreamBinding} carries the live source and target the executor runs it against.
 *
 * @param source             how the source describes itself to people
 * @param partitions         what this run copies, largest first
 * @param allPartitions      the stream's whole plan (equal to {@code partitions} unless a resume skips done ones)
 * @param recorded           partitions are recorded in the target's run ledger; false with {@code ledger: off}
 * @param oneTransaction     a truncate load written by one worker in one target transaction (TRUNCATE, every
 *                           partition, COMMIT), so a failure leaves the target as it was; else each partition commits
 *                           on its own. Such a load reads the source whole ({@code method: none}'s partitions):
 *                           partitions would only add boundaries where both servers wait
 * @param partitionWriteStatement what the target runs for each partition committed on its own
 * @param transactionWriteStatement what it runs for the one transaction; present when the stream is planned as one
 * @param leftOutColumns     column pairs generated on both sides, which the copy leaves to the target to compute
 * @param window             for an incremental stream, the rows this run reads (cursor above the last successful
 *                           run's highest, up to today's highest); empty: every row
 * @param startMarks         what the run records once when the stream starts (an incremental stream's window, or the
 *                           files it will have loaded), so a resume keeps the first start's
 * @param load               what the target runs besides the partitions' COPY for the load mode (creating the table,
 *                           the shadow table and its swap, index builds), as it planned them
 */
public record StreamPlan(
        StreamSpec spec,
        int degree,
        String source,
        String targetTable,
        List<ColumnPair> columns,
        ProjectionPlan projection,
        List<PartitionPlan> partitions,
        String snapshotMode,
        List<PartitionPlan> allPartitions,
        boolean recorded,
        boolean oneTransaction,
        String partitionWriteStatement,
        Optional<String> transactionWriteStatement,
        List<ColumnPair> leftOutColumns,
        Optional<RowWindow> window,
        java.util.Map<String, String> startMarks,
        LoadPlan load) {
    public StreamPlan {
        requireNonNull(spec, "spec is null");
        requireNonNull(source, "source is null");
        requireNonNull(targetTable, "targetTable is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(projection, "projection is null");
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        requireNonNull(snapshotMode, "snapshotMode is null");
        allPartitions = List.copyOf(requireNonNull(allPartitions, "allPartitions is null"));
        requireNonNull(partitionWriteStatement, "partitionWriteStatement is null");
        requireNonNull(transactionWriteStatement, "transactionWriteStatement is null");
        leftOutColumns = List.copyOf(requireNonNull(leftOutColumns, "leftOutColumns is null"));
        requireNonNull(window, "window is null");
        startMarks = java.util.Map.copyOf(requireNonNull(startMarks, "startMarks is null"));
        requireNonNull(load, "load is null");
        if (oneTransaction && transactionWriteStatement.isEmpty()) {
            throw new IllegalArgumentException("a one-transaction plan needs the target's statement for it");
        }
    }

    /**
     * The same stream with another whole plan ({@code all}) of which only {@code pending} is left to copy. A stream
     * resumed half-way was truncated by the run already, so it goes on a partition at a time.
     */
    public StreamPlan withPartitions(List<PartitionPlan> all, List<PartitionPlan> pending) {
        boolean whole = oneTransaction && pending.size() == all.size();
        return new StreamPlan(spec, degree, source, targetTable, columns, projection, pending, snapshotMode, all,
                recorded, whole, partitionWriteStatement, transactionWriteStatement, leftOutColumns, window,
                startMarks, load);
    }

    /** The same stream with another plan of the target's work besides the COPY. */
    public StreamPlan withLoad(LoadPlan other) {
        return new StreamPlan(spec, degree, source, targetTable, columns, projection, partitions, snapshotMode,
                allPartitions, recorded, oneTransaction, partitionWriteStatement, transactionWriteStatement,
                leftOutColumns, window, startMarks, other);
    }

    public String name() {
        return spec.name();
    }

    /** The statement the target runs for this plan's transactions. */
    public String writeStatement() {
        return oneTransaction ? transactionWriteStatement.orElseThrow() : partitionWriteStatement;
    }

    /**
     * How many workers copy the stream at once: one for a load in one transaction; else the degree, and no more than
     * there are partitions unless {@code fedByLedger} (a joined run's partitions come from the ledger as they free up,
     * so each process keeps its whole degree ready).
     */
    public int workers(boolean fedByLedger) {
        if (oneTransaction) {
            return 1;
        }
        return fedByLedger ? degree : Math.min(degree, Math.max(1, partitions.size()));
    }

    /** How errors and logs name the stream: {@code stream 'orders'}. */
    public String where() {
        return "stream '" + name() + "'";
    }

    /** How errors and logs name a partition: {@code stream 'orders', partition 3/8 (ctid >= ...)}. */
    public String where(PartitionPlan partition) {
        return where() + ", partition " + (partition.index() + 1) + "/" + allPartitions.size() + " ("
                + partition.predicate() + ")";
    }

    /** How the target's transactions are cut, for people. */
    public String transactions() {
        return spec.load().transactions(oneTransaction);
    }

    /** What {@code verify:} compares and when, for people; empty with {@code verify: none}. */
    public Optional<String> verification() {
        return switch (spec.verify()) {
            case NONE -> Optional.empty();
            case COUNT, CHECKSUM -> Optional.of(spec.verify().name().toLowerCase(java.util.Locale.ROOT) + " per "
                    + "partition (or the stream's totals) once the load is done");
            case COMPARE -> Optional.of("compare, row by row against the run's snapshot of the source, "
                    + (spec.load().mode() == LoadMode.REPLACE
                    ? "on the new table before the swap (a difference leaves the old table live)"
                    : oneTransaction ? "in the load's transaction before its commit (a difference rolls it back)"
                    : "after the load's last step (the rows are live by then)"));
        };
    }

    public List<Column> targetColumns() {
        return columns.stream().map(ColumnPair::target).toList();
    }

    public long estimatedRows() {
        return partitions.stream().mapToLong(p -> Math.max(0, p.estimatedRows())).sum();
    }

    public long estimatedBytes() {
        return partitions.stream().mapToLong(p -> Math.max(0, p.estimatedBytes())).sum();
    }
}
