package io.sluice.core.plan;

import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.Column;
import io.sluice.spi.ColumnPair;
import io.sluice.spi.Source;
import io.sluice.spi.SourceProjection;
import io.sluice.spi.Target;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What was derived for one stream: the resolved source and target, the column mapping with how each column is
 * read, the partitions in run order, and the statements each side runs.
 *
 * @param partitions    what this run copies, largest first
 * @param allPartitions the stream's whole plan (equal to {@code partitions} unless a resume skips done ones)
 * @param ledger        where partitions are recorded; empty with {@code ledger: off}
 * @param oneTransaction a truncate load written by one worker in one target transaction (TRUNCATE, every partition,
 *                      COMMIT), so a failure leaves the target as it was; else each partition commits on its own.
 *                      Such a load reads the source whole ({@code method: none}'s partitions): partitions would
 *                      only add boundaries where both servers wait
 * @param leftOutColumns column pairs generated on both sides, which the copy leaves to the target to compute
 */
public record StreamPlan(
        StreamSpec spec,
        int degree,
        Source source,
        Target target,
        String targetTable,
        List<ColumnPair> columns,
        SourceProjection projection,
        List<PartitionPlan> partitions,
        String writeStatement,
        String snapshotMode,
        List<PartitionPlan> allPartitions,
        java.util.Optional<io.sluice.spi.ledger.RunLedger> ledger,
        boolean oneTransaction,
        List<ColumnPair> leftOutColumns) {
    public StreamPlan {
        requireNonNull(spec, "spec is null");
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(targetTable, "targetTable is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(projection, "projection is null");
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        requireNonNull(writeStatement, "writeStatement is null");
        requireNonNull(snapshotMode, "snapshotMode is null");
        allPartitions = List.copyOf(requireNonNull(allPartitions, "allPartitions is null"));
        requireNonNull(ledger, "ledger is null");
        leftOutColumns = List.copyOf(requireNonNull(leftOutColumns, "leftOutColumns is null"));
    }

    /** A stream that leaves no column out. */
    public StreamPlan(StreamSpec spec, int degree, Source source, Target target, String targetTable,
                      List<ColumnPair> columns, SourceProjection projection, List<PartitionPlan> partitions,
                      String writeStatement, String snapshotMode, List<PartitionPlan> allPartitions,
                      java.util.Optional<io.sluice.spi.ledger.RunLedger> ledger, boolean oneTransaction) {
        this(spec, degree, source, target, targetTable, columns, projection, partitions, writeStatement, snapshotMode,
                allPartitions, ledger, oneTransaction, List.of());
    }

    /**
     * The same stream with another whole plan ({@code all}) of which only {@code pending} is left to copy. A stream
     * resumed half-way was truncated by the run already, so it goes on a partition at a time.
     */
    public StreamPlan withPartitions(List<PartitionPlan> all, List<PartitionPlan> pending) {
        boolean whole = oneTransaction && pending.size() == all.size();
        String statement = oneTransaction && !whole
                ? target.writeStatement(targetColumns(), projection.format()) : writeStatement;
        return new StreamPlan(spec, degree, source, target, targetTable, columns, projection, pending, statement,
                snapshotMode, all, ledger, whole, leftOutColumns);
    }

    public String name() {
        return spec.name();
    }

    /** How errors and logs name the stream: {@code stream 'orders'}. */
    public String where() {
        return "stream '" + name() + "'";
    }

    /** How errors and logs name a partition: {@code stream 'orders', partition 3/8 (ctid >= ...)}. */
    public String where(PartitionPlan partition) {
        return where() + ", partition " + (partition.index() + 1) + "/" + allPartitions.size() + " ("
                + partition.partition().predicate() + ")";
    }

    /** How the target's transactions are cut, for people. */
    public String transactions() {
        if (oneTransaction) {
            return "one for the stream (TRUNCATE, the source read whole, COMMIT): all or nothing, a failure "
                    + "leaves the old rows";
        }
        return spec.loadMode() == io.sluice.spi.LoadMode.TRUNCATE
                ? "TRUNCATE committed first, then one per partition" : "one per partition";
    }

    public List<Column> targetColumns() {
        return columns.stream().map(ColumnPair::target).toList();
    }

    public long estimatedRows() {
        return partitions.stream().mapToLong(p -> Math.max(0, p.partition().estimatedRows())).sum();
    }

    public long estimatedBytes() {
        return partitions.stream().mapToLong(p -> Math.max(0, p.partition().estimatedBytes())).sum();
    }
}
