package io.sluice.spi.connector;

import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.IncrementalMode;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourceSession;

import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * What a connector's sources can do, known without connecting: the distribution methods they plan, for which of
 * those the plan follows the stream's rows per partition ({@code batch-size}), whether their readers share one
 * snapshot, and where their readers may run. Declared once by the factory
 * ({@link ConnectorFactory#sourceCapabilities()}), the only place the core asks: it checks specs against it (a method
 * the source cannot plan, a {@code batch-size} that changes nothing), leaves rows per partition out of a stream's
 * resume definition where the plan does not depend on it, says in the plan whether the stream reads one snapshot,
 * and starts the readers on the threads they need.
 *
 * @param distributionMethods the methods a source of this connector can plan
 * @param rowsPerPartitionMethods those of them whose partitions hold about {@link PlanRequest#rowsPerPartition()}
 *        rows each; other methods split by other means (the degree, a values query, one partition per file)
 * @param sharesSnapshot whether {@code openSession(SNAPSHOT)} gives all readers one snapshot of the source; when
 *        false each partition reads what is there when it starts, whatever the spec asks, and {@code sluice plan}
 *        says so
 * @param readerThreads where readers may run: readers that sit in native code for long (JNI) pin a virtual
 *        thread's carrier and must run on platform threads
 * @param incrementalModes how the sources can load a stream incrementally; the core refuses {@code incremental:} in
 *        any other way
 * @param comparesRows whether a session computes checksum digests and lists its rows ({@link SourceSession#rows()}),
 *        which {@code sluice compare} and {@code verify: compare} need; the core refuses them otherwise
 */
public record SourceCapabilities(Set<DistributionMethod> distributionMethods,
                                 Set<DistributionMethod> rowsPerPartitionMethods,
                                 boolean sharesSnapshot,
                                 Source.ThreadModel readerThreads,
                                 Set<IncrementalMode> incrementalModes,
                                 boolean comparesRows) {
    public SourceCapabilities {
        requireNonNull(distributionMethods, "distributionMethods is null");
        requireNonNull(rowsPerPartitionMethods, "rowsPerPartitionMethods is null");
        requireNonNull(readerThreads, "readerThreads is null");
        incrementalModes = Set.copyOf(requireNonNull(incrementalModes, "incrementalModes is null"));
        distributionMethods = Set.copyOf(distributionMethods);
        rowsPerPartitionMethods = Set.copyOf(rowsPerPartitionMethods);
        if (!distributionMethods.containsAll(rowsPerPartitionMethods)) {
            throw new IllegalArgumentException("rowsPerPartitionMethods " + rowsPerPartitionMethods
                    + " are not all among distributionMethods " + distributionMethods);
        }
    }

    /** Sources that compare no rows. */
    public SourceCapabilities(Set<DistributionMethod> distributionMethods,
                              Set<DistributionMethod> rowsPerPartitionMethods, boolean sharesSnapshot,
                              Source.ThreadModel readerThreads, Set<IncrementalMode> incrementalModes) {
        this(distributionMethods, rowsPerPartitionMethods, sharesSnapshot, readerThreads, incrementalModes, false);
    }

    /** Sources that load nothing incrementally. */
    public SourceCapabilities(Set<DistributionMethod> distributionMethods,
                              Set<DistributionMethod> rowsPerPartitionMethods, boolean sharesSnapshot,
                              Source.ThreadModel readerThreads) {
        this(distributionMethods, rowsPerPartitionMethods, sharesSnapshot, readerThreads, Set.of(), false);
    }

    /** Sources with no snapshot to share, whose readers run on virtual threads. */
    public SourceCapabilities(Set<DistributionMethod> distributionMethods,
                              Set<DistributionMethod> rowsPerPartitionMethods) {
        this(distributionMethods, rowsPerPartitionMethods, false, Source.ThreadModel.VIRTUAL, Set.of(), false);
    }

    /** Sources that read everything in one go: method {@code none} only. */
    public static SourceCapabilities noneOnly() {
        return new SourceCapabilities(Set.of(DistributionMethod.NONE), Set.of());
    }

    public boolean supports(IncrementalMode mode) {
        return incrementalModes.contains(requireNonNull(mode, "mode is null"));
    }

    public boolean supports(DistributionMethod method) {
        return distributionMethods.contains(requireNonNull(method, "method is null"));
    }

    /** Whether a plan with {@code method} depends on {@link PlanRequest#rowsPerPartition()}. */
    public boolean plansRowsPerPartition(DistributionMethod method) {
        return rowsPerPartitionMethods.contains(requireNonNull(method, "method is null"));
    }
}
