package io.sluice.core.compare;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.spi.Column;
import io.sluice.spi.ColumnPair;
import io.sluice.spi.Digest;
import io.sluice.spi.SourceSession;
import io.sluice.spi.HashedRows;
import io.sluice.spi.SourceRows;
import io.sluice.spi.TargetRows;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Compares one stream's target with what its source gives now through the stream's projection (renames, column
 * rules, filter, casts), the source read in one session (its snapshot). First by digests computed where the data
 * lives, per partition when the target can select a partition's rows by itself (columns copied under their own
 * names, no column rules); then, only where digests differ, row by row: both sides list key and per-column hashes in
 * one order and {@link RowMerge} walks them.
 */
final class StreamComparer {
    /** A stream compared whole lists every partition at once (a connection each); above this, it says so instead. */
    static final int MAX_LISTED_AT_ONCE = 32;

    private final StreamPlan plan;
    private final StreamBinding binding;
    private final int maxDifferences;

    StreamComparer(StreamPlan plan, StreamBinding binding, int maxDifferences) {
        this.plan = requireNonNull(plan, "plan is null");
        this.binding = requireNonNull(binding, "binding is null");
        this.maxDifferences = maxDifferences;
    }

    StreamCompareReport compare() throws ConnectorException {
        List<Column> columns = plan.targetColumns();
        List<String> names = columns.stream().map(Column::name).toList();
        try (SourceSession session = binding.source().openSession(plan.spec().consistency())) {
            Optional<SourceRows> sourceRows = session.rows();
            Optional<TargetRows> targetRows = binding.target().rows();
            List<Integer> key = targetRows.isPresent() ? keyPositions(targetRows.get().primaryKey(), names)
                    : List.of();
            Differences differences = new Differences(maxDifferences,
                    key.isEmpty() ? List.of("row") : key.stream().map(names::get).toList(), names);
            Digest targetTotal = targetDigest(Optional.empty());
            Digest sourceTotal = Digest.zero(Digest.Level.CHECKSUM);
            List<PartitionPlan> differing = new ArrayList<>();
            boolean perPartition = perPartition();
            Digest targetSum = Digest.zero(Digest.Level.CHECKSUM);
            for (PartitionPlan partition : plan.allPartitions()) {
                Digest source = session.digest(binding.partition(partition), binding.projection(),
                        Digest.Level.CHECKSUM).orElseThrow(() -> cannot("the source", "a checksum digest"));
                sourceTotal = sourceTotal.plus(source);
                if (perPartition) {
                    Digest target = targetDigest(partition.portablePredicate());
                    targetSum = targetSum.plus(target);
                    if (!source.equals(target)) {
                        differing.add(partition);
                    }
                }
            }
            // Rows of the target no partition selects (e.g. ones the stream's filter leaves out) make it whole.
            boolean whole = !perPartition || !targetSum.equals(targetTotal);
            int partitions = plan.allPartitions().size();
            String method = whole ? (partitions == 1 ? "1 partition" : partitions + " partitions")
                    + " by digest against the whole target" : partitions + " partition(s) by digest, "
                    + differing.size() + " listed row by row";
            if (whole && sourceTotal.equals(targetTotal) || !whole && differing.isEmpty()) {
                return report(sourceTotal, targetTotal, method, differences, Optional.empty());
            }
            if (sourceRows.isEmpty() || targetRows.isEmpty()) {
                return report(sourceTotal, targetTotal, method, differences, Optional.of((sourceRows.isEmpty()
                        ? "the source" : "the target") + " cannot list its rows; the digests differ"));
            }
            if (whole && partitions > MAX_LISTED_AT_ONCE) {
                return report(sourceTotal, targetTotal, method, differences, Optional.of("the digests differ; "
                        + "listing " + partitions + " partitions against the whole target would take a connection "
                        + "each (at most " + MAX_LISTED_AT_ONCE + "): compare with fewer partitions (batch-size)"));
            }
            if (whole) {
                List<HashedRows> listings = new ArrayList<>();
                try (HashedRows merged = merged(session, sourceRows.get(), key, listings);
                     HashedRows target = targetRows.get().list(columns, Optional.empty(), key)) {
                    RowMerge.merge(merged, target, differences);
                }
            } else {
                for (PartitionPlan partition : differing) {
                    try (HashedRows source = sourceRows.get().list(binding.partition(partition),
                            binding.projection(), key);
                         HashedRows target = targetRows.get().list(columns, partition.portablePredicate(), key)) {
                        RowMerge.merge(source, target, differences);
                    }
                }
            }
            return report(sourceTotal, targetTotal, method, differences, Optional.empty());
        }
    }

    private HashedRows merged(SourceSession session, SourceRows rows, List<Integer> key, List<HashedRows> opened)
            throws ConnectorException {
        try {
            for (PartitionPlan partition : plan.allPartitions()) {
                opened.add(rows.list(binding.partition(partition), binding.projection(), key));
            }
            return new MergedRows(opened);
        } catch (ConnectorException | RuntimeException e) {
            opened.forEach(HashedRows::close);
            throw e;
        }
    }

    private StreamCompareReport report(Digest source, Digest target, String method, Differences differences,
                                       Optional<String> unlisted) {
        return new StreamCompareReport(plan.name(), plan.source(), plan.targetTable(), source.rows(), target.rows(),
                method, differences.count(), differences.listed(), unlisted);
    }

    private Digest targetDigest(Optional<String> predicate) throws ConnectorException {
        return binding.target().digest(plan.targetColumns(), predicate, Digest.Level.CHECKSUM)
                .orElseThrow(() -> cannot("the target", "a checksum digest"));
    }

    /** The target's primary key as positions among the compared columns; empty when one is not copied. */
    private static List<Integer> keyPositions(List<String> primaryKey, List<String> names) {
        List<Integer> positions = primaryKey.stream().map(names::indexOf).toList();
        return positions.contains(-1) ? List.of() : positions;
    }

    private boolean perPartition() {
        return plan.spec().columnRules().isEmpty()
                && plan.columns().stream().allMatch((ColumnPair p) -> p.source().name().equals(p.target().name()))
                && plan.allPartitions().stream().allMatch(p -> p.portablePredicate().isPresent());
    }

    private SluiceException cannot(String side, String what) {
        return new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.COMPARE001, "stream '" + plan.name() + "': "
                + side + " (" + (side.equals("the source") ? plan.source() : plan.targetTable()) + ") cannot "
                + "compute " + what + ", which compare needs", "compare streams between connectors that compute "
                + "digests (docs/operations.md, \"Proving a migration\")");
    }
}
