package io.sluice.core.run;

import io.sluice.core.compare.Comparer;
import io.sluice.core.compare.Difference;
import io.sluice.core.compare.StreamCompareReport;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.report.Verification;
import io.sluice.core.spec.VerifyMode;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.Digest;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.TargetRows;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Compares digests of both sides after a stream's copy, computed by SQL where the data lives (no row leaves the
 * servers). The source side reads the run's snapshot, so rows that arrived during the copy do not count.
 * Per partition when the target can select each partition's rows (a column-only predicate, columns mapped under
 * their own names, and a target that held nothing else); otherwise the stream's totals, using the target's digest
 * after minus before for an appending stream.
 */
final class Verifier {
    /** Differences a {@code verify: compare} lists (all are counted). */
    static final int LISTED = 1_000;

    private final StreamPlan plan;
    private final StreamBinding binding;
    private final Digest.Level level;

    Verifier(StreamPlan plan, StreamBinding binding) {
        this.plan = requireNonNull(plan, "plan is null");
        this.binding = requireNonNull(binding, "binding is null");
        this.level = plan.spec().verify() == VerifyMode.CHECKSUM ? Digest.Level.CHECKSUM : Digest.Level.COUNT;
    }

    boolean requested() {
        return plan.spec().verify() != VerifyMode.NONE;
    }

    /** Whether the load is verified by {@link #compare} as it finishes ({@link LoadedCompare}), not after it. */
    boolean compares() {
        return plan.spec().verify() == VerifyMode.COMPARE;
    }

    /**
     * {@code verify: compare}: the loaded {@code rows} (where they wait to go live, or the target's table) against
     * the source as the run's {@code session} reads it; each differing row a mismatch line.
     */
    Verification compare(SourceSession session, TargetRows rows) throws ConnectorException {
        StreamCompareReport report;
        try (TargetRows pinned = rows.pinned()) { // a live table (rows loaded as they went) may have other writers
            report = Comparer.loaded(plan, binding, session, pinned, LISTED);
        }
        String counts = report.sourceRows() + " rows in the source's snapshot, " + report.targetRows() + " loaded";
        if (report.equal()) {
            return new Verification(VerifyMode.COMPARE, Verification.Status.PASSED, "row", counts + ", equal ("
                    + report.method() + ")", List.of());
        }
        String detail = report.unlisted().map(why -> "differences it cannot list (" + why + ")")
                .orElse(report.differences() + " differing row(s)") + "; " + counts;
        return new Verification(VerifyMode.COMPARE, Verification.Status.FAILED, "row", detail,
                report.listed().stream().map(Verifier::line).toList());
    }

    private static String line(Difference difference) {
        String key = difference.key().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining(", ", "(", ")"));
        return switch (difference.kind()) {
            case MISSING -> key + " missing from the target";
            case EXTRA -> key + " extra in the target";
            case CHANGED -> key + " changed: " + String.join(", ", difference.columns());
        };
    }

    /** The target's digest before the copy, needed to verify an appending stream; zero otherwise. */
    Optional<Digest> baseline() throws ConnectorException {
        if (!requested() || emptiesTarget()) {
            return Optional.of(Digest.zero(level));
        }
        return binding.target().digest(plan.targetColumns(), Optional.empty(), level);
    }

    Verification verify(SourceSession session, Optional<Digest> baseline) throws ConnectorException {
        VerifyMode mode = plan.spec().verify();
        boolean resumed = plan.partitions().size() != plan.allPartitions().size();
        if (resumed && plan.spec().load().appends()) {
            return Verification.skipped(mode, "an appending stream that was resumed cannot be verified: the target's "
                    + "content before the first attempt is not known");
        }
        if (baseline.isEmpty()) {
            return Verification.skipped(mode, "the target cannot compute a " + level.name().toLowerCase() + " digest");
        }
        if (perPartition()) {
            return byPartition(session, mode);
        }
        Digest source = Digest.zero(level);
        for (PartitionPlan partition : plan.allPartitions()) {
            Optional<Digest> digest = session.digest(binding.partition(partition), binding.projection(), level);
            if (digest.isEmpty()) {
                return Verification.skipped(mode, "the source cannot compute a " + level.name().toLowerCase()
                        + " digest");
            }
            source = source.plus(digest.get());
        }
        Optional<Digest> after = binding.target().digest(plan.targetColumns(), Optional.empty(), level);
        if (after.isEmpty()) {
            return Verification.skipped(mode, "the target cannot compute a digest");
        }
        Digest target = after.get().minus(baseline.get());
        if (source.equals(target)) {
            return new Verification(mode, Verification.Status.PASSED, "stream", describe(source), List.of());
        }
        return new Verification(mode, Verification.Status.FAILED, "stream", "the stream's totals differ",
                List.of("stream " + plan.name() + ": source " + describe(source) + ", target " + describe(target)));
    }

    private Verification byPartition(SourceSession session, VerifyMode mode) throws ConnectorException {
        List<String> mismatches = new ArrayList<>();
        Digest total = Digest.zero(level);
        for (PartitionPlan partition : plan.allPartitions()) {
            Optional<Digest> source = session.digest(binding.partition(partition), binding.projection(), level);
            Optional<Digest> target = binding.target().digest(plan.targetColumns(),
                    partition.portablePredicate(), level);
            if (source.isEmpty() || target.isEmpty()) {
                return Verification.skipped(mode, "a " + level.name().toLowerCase() + " digest is not available on "
                        + (source.isEmpty() ? "the source" : "the target"));
            }
            total = total.plus(source.get());
            if (!source.get().equals(target.get())) {
                mismatches.add("partition " + (partition.index() + 1) + "/" + plan.allPartitions().size() + " ("
                        + partition.predicate() + "): source " + describe(source.get()) + ", target "
                        + describe(target.get()));
            }
        }
        return mismatches.isEmpty()
                ? new Verification(mode, Verification.Status.PASSED, "partition", describe(total), List.of())
                : new Verification(mode, Verification.Status.FAILED, "partition",
                mismatches.size() + " partition(s) differ", mismatches);
    }

    /** Whether the target holds only what the stream copied once it is done, so it compares with the source whole. */
    private boolean emptiesTarget() {
        return plan.spec().load().endsAsSource();
    }

    private boolean perPartition() {
        return plan.spec().load().writesWholeContent()
                && plan.columns().stream().allMatch((ColumnPair p) -> p.source().name().equals(p.target().name()))
                && plan.allPartitions().stream().allMatch(p -> p.portablePredicate().isPresent());
    }

    private static String describe(Digest digest) {
        return digest.rows() + " rows" + digest.checksum().map(c -> ", checksum " + c).orElse("");
    }
}
