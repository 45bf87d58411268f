package io.sluice.core.compare;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceRows;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.TargetRows;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;

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
    /** Differing rows up to this many are listed at once; above, by bucket. */
    static final long LISTED_WHOLE_UP_TO_ROWS = 10_000;
    static final long ROWS_PER_BUCKET = 1_000;
    static final int MAX_BUCKETS = 65_536;

    private final StreamPlan plan;
    private final StreamBinding binding;
    private final int maxDifferences;

    StreamComparer(StreamPlan plan, StreamBinding binding, int maxDifferences) {
        this.plan = requireNonNull(plan, "plan is null");
        this.binding = requireNonNull(binding, "binding is null");
        this.maxDifferences = maxDifferences;
    }

    /**
     * The stream's target table against its source, read in a session of its own; the target pinned first, as of one
     * moment, so writes to either side during the compare show no phantom differences.
     */
    StreamCompareReport compare() throws ConnectorException {
        TargetRows rows = binding.target().rows().orElseThrow(() -> cannot("the target", "row lists"));
        try (TargetRows target = rows.pinned();
             SourceSession session = binding.source().openSession(plan.spec().consistency())) {
            return compare(session, target);
        }
    }

    /** {@code target}'s rows (a load's, before they go live) against the source as {@code session} reads it. */
    StreamCompareReport compare(SourceSession session, TargetRows target) throws ConnectorException {
        binding.projection().requireComparable();
        List<Column> columns = plan.targetColumns();
        List<String> names = columns.stream().map(Column::name).toList();
        SourceRows sourceRows = session.rows().orElseThrow(() -> cannot("the source", "row digests"));
        RowHash hash = hash(sourceRows, target);
        List<Integer> key = keyPositions(target.primaryKey(), names);
        Differences differences = new Differences(maxDifferences,
                key.isEmpty() ? List.of("row") : key.stream().map(names::get).toList(), names,
                key.isEmpty() && hash == RowHash.PORTABLE);
        boolean perPartition = perPartition();
        Totals totals = digests(sourceRows, target, perPartition, hash);
        Digest sourceTotal = totals.source();
        Digest targetTotal = totals.target();
        // Rows of the target no partition selects (e.g. ones the stream's filter leaves out) make it whole.
        boolean whole = !perPartition || !totals.targetSelected().equals(targetTotal);
        int partitions = plan.allPartitions().size();
        String method = whole ? (partitions == 1 ? "1 partition" : partitions + " partitions")
                + " by digest against the whole target" : partitions + " partition(s) by digest, "
                + totals.differing().size() + " listed row by row";
        if (whole && sourceTotal.equals(targetTotal) || !whole && totals.differing().isEmpty()) {
            return report(sourceTotal, targetTotal, method, differences, Optional.empty());
        }
        if (whole && partitions > MAX_LISTED_AT_ONCE) {
            return report(sourceTotal, targetTotal, method, differences, Optional.of("the digests differ; "
                    + "listing " + partitions + " partitions against the whole target would take a connection "
                    + "each (at most " + MAX_LISTED_AT_ONCE + "): compare with fewer partitions (batch-size)"));
        }
        Listing listing = new Listing(sourceRows, target, key, differences, hash);
        if (whole) {
            listing.list(plan.allPartitions(), Optional.empty(), Math.max(sourceTotal.rows(), targetTotal.rows()));
        } else {
            for (Differing d : totals.differing()) {
                listing.list(List.of(d.partition()), d.partition().portablePredicate(), d.rows());
            }
        }
        return report(sourceTotal, targetTotal, method + (listing.bucketed == 0 ? ""
                : " (" + listing.bucketed + " by bucket)"), differences, Optional.empty());
    }

    /**
     * @param targetSelected what the partitions' predicates select of the target (when compared per partition)
     * @param differing      the partitions whose digests differ (when compared per partition)
     */
    private record Totals(Digest source, Digest target, Digest targetSelected, List<Differing> differing) {
    }

    /** A partition whose digests differ, with the larger of its two row counts. */
    private record Differing(PartitionPlan partition, long rows) {
    }

    /** Every digest the comparison needs, {@link Digests} at the stream's degree on each server. */
    private Totals digests(SourceRows sourceRows, TargetRows targetRows, boolean perPartition, RowHash hash)
            throws ConnectorException {
        try (Digests digests = new Digests(plan.degree())) {
            // Per partition, the whole target is only counted (hashing it again would double the target's work):
            // when the partitions select every row, their digests add up to the whole one.
            Future<Digest> whole = digests.target(() -> targetRows.digest(plan.targetColumns(), Optional.empty(),
                    perPartition ? Digest.Level.COUNT : Digest.Level.CHECKSUM, hash));
            List<Future<Digest>> sources = new ArrayList<>();
            List<Future<Digest>> targets = new ArrayList<>();
            for (PartitionPlan partition : plan.allPartitions()) {
                sources.add(digests.source(() -> sourceRows.digest(binding.partition(partition),
                        binding.projection(), hash)));
                if (perPartition) {
                    targets.add(digests.target(() -> targetRows.digest(plan.targetColumns(),
                            partition.portablePredicate(), Digest.Level.CHECKSUM, hash)));
                }
            }
            Digest source = Digest.zero(Digest.Level.CHECKSUM);
            Digest selected = Digest.zero(Digest.Level.CHECKSUM);
            List<Differing> differing = new ArrayList<>();
            for (int i = 0; i < sources.size(); i++) {
                Digest s = digests.await(sources.get(i));
                source = source.plus(s);
                if (perPartition) {
                    Digest t = digests.await(targets.get(i));
                    selected = selected.plus(t);
                    if (!s.equals(t)) {
                        differing.add(new Differing(plan.allPartitions().get(i), Math.max(s.rows(), t.rows())));
                    }
                }
            }
            Digest target = digests.await(whole);
            if (perPartition) {
                target = target.rows() == selected.rows() ? selected
                        : targetRows.digest(plan.targetColumns(), Optional.empty(), Digest.Level.CHECKSUM, hash);
            }
            return new Totals(source, target, selected, differing);
        }
    }

    /**
     * Lists and merges the rows behind differing digests. Above {@link #LISTED_WHOLE_UP_TO_ROWS} rows, both sides
     * first digest the rows by bucket of their key's hash (about {@link #ROWS_PER_BUCKET} rows each) in one pass, and
     * only the buckets whose digests differ are listed: a changed row in a million lists about a thousand.
     */
    private final class Listing {
        private final SourceRows sourceRows;
        private final TargetRows targetRows;
        private final List<Integer> key;
        private final Differences differences;
        private final RowHash hash;
        /** How many listings went by bucket. */
        private int bucketed;

        Listing(SourceRows sourceRows, TargetRows targetRows, List<Integer> key, Differences differences,
                RowHash hash) {
            this.hash = hash;
            this.sourceRows = sourceRows;
            this.targetRows = targetRows;
            this.key = key;
            this.differences = differences;
        }

        /** Compares the rows of {@code partitions} (source) with the target's rows {@code predicate} selects. */
        void list(List<PartitionPlan> partitions, Optional<String> predicate, long rows) throws ConnectorException {
            Buckets buckets = buckets(partitions, predicate, rows);
            List<SourcePartition> read = new ArrayList<>();
            for (PartitionPlan partition : partitions) {
                read.add(binding.partition(partition));
            }
            try (HashedRows source = sourceRows.list(read, binding.projection(), key, buckets, hash);
                 HashedRows target = targetRows.list(plan.targetColumns(), predicate, key, buckets, hash)) {
                RowMerge.merge(source, target, differences);
            }
        }

        private Buckets buckets(List<PartitionPlan> partitions, Optional<String> predicate, long rows)
                throws ConnectorException {
            if (rows <= LISTED_WHOLE_UP_TO_ROWS) {
                return Buckets.ALL;
            }
            int count = (int) Math.min(MAX_BUCKETS, rows / ROWS_PER_BUCKET);
            try (Digests digests = new Digests(plan.degree())) {
                Future<List<Digest>> target = digests.target(() -> targetRows.bucketDigests(plan.targetColumns(),
                        predicate, key, count, hash));
                List<Future<List<Digest>>> sources = new ArrayList<>();
                for (PartitionPlan partition : partitions) {
                    sources.add(digests.source(() -> sourceRows.bucketDigests(binding.partition(partition),
                            binding.projection(), key, count, hash)));
                }
                List<Digest> source = new ArrayList<>(java.util.Collections.nCopies(count,
                        Digest.zero(Digest.Level.CHECKSUM)));
                for (Future<List<Digest>> part : sources) {
                    List<Digest> digestsOfPart = digests.await(part);
                    for (int b = 0; b < count; b++) {
                        source.set(b, source.get(b).plus(digestsOfPart.get(b)));
                    }
                }
                List<Digest> targets = digests.await(target);
                java.util.Set<Integer> chosen = new java.util.TreeSet<>();
                for (int b = 0; b < count; b++) {
                    if (!source.get(b).equals(targets.get(b))) {
                        chosen.add(b);
                    }
                }
                // Most buckets differ (e.g. an empty target): listing all costs less than naming each.
                if (chosen.size() > count / 2) {
                    return Buckets.ALL;
                }
                bucketed++;
                return new Buckets(count, chosen);
            }
        }
    }

    private StreamCompareReport report(Digest source, Digest target, String method, Differences differences,
                                       Optional<String> unlisted) {
        return new StreamCompareReport(plan.name(), plan.source(), plan.targetTable(), source.rows(), target.rows(),
                method, differences.count(), differences.listed(), unlisted);
    }

    /** The first hash both sides offer, in {@link RowHash}'s order of preference. */
    private RowHash hash(SourceRows source, TargetRows target) {
        for (RowHash hash : RowHash.values()) {
            if (source.hashes().contains(hash) && target.hashes().contains(hash)) {
                return hash;
            }
        }
        throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.COMPARE001, "stream '" + plan.name() + "': the "
                + "source (" + plan.source() + ") hashes rows by " + source.hashes() + ", the target ("
                + plan.targetTable() + ") by " + target.hashes() + ": no way in common", "compare streams between "
                + "connectors that share a row hash (docs/operations.md, \"Proving a migration\")");
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
