package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.ledger.Ledger;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.Target;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The live side of a {@link StreamPlan}: the connector objects it runs against, and the connector's own partitions
 * and projection behind the plan's data. A partition planned in this process is found by its id; any other (a
 * resumed one) is rebuilt by the source from its checkpoint. Thread-safe.
 */
public final class StreamBinding {
    private final Source source;
    private final Target target;
    private final PlannedLoad load;
    private final Optional<Ledger> ledger;
    private final SourceProjection projection;
    private final Source.ThreadModel readerThreads;
    private final Map<String, SourcePartition> partitions = new ConcurrentHashMap<>();
    private final java.util.Set<RelationIdentity> reads;
    private final Optional<RelationIdentity> writes;
    /** The spec's name of the target's connection; empty when not known (a stream built by hand). */
    private final String targetConnection;

    public StreamBinding(Source source, Target target, PlannedLoad load, Optional<Ledger> ledger, SourceProjection projection,
                         Source.ThreadModel readerThreads) {
        this(source, target, load, ledger, projection, readerThreads, java.util.Set.of(), Optional.empty());
    }

    /**
     * @param reads  the stored relations the source reads, as the plan found them (empty: unknown)
     * @param writes the table the target writes, when it exists
     */
    public StreamBinding(Source source, Target target, PlannedLoad load, Optional<Ledger> ledger, SourceProjection projection,
                         Source.ThreadModel readerThreads, java.util.Set<RelationIdentity> reads,
                         Optional<RelationIdentity> writes) {
        this(source, target, load, ledger, projection, readerThreads, reads, writes, "");
    }

    /** {@code targetConnection}: the spec's name of the target's connection (a run's hooks find their ledger by it). */
    public StreamBinding(Source source, Target target, PlannedLoad load, Optional<Ledger> ledger, SourceProjection projection,
                         Source.ThreadModel readerThreads, java.util.Set<RelationIdentity> reads,
                         Optional<RelationIdentity> writes, String targetConnection) {
        this.targetConnection = requireNonNull(targetConnection, "targetConnection is null");
        this.reads = java.util.Set.copyOf(requireNonNull(reads, "reads is null"));
        this.writes = requireNonNull(writes, "writes is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.load = requireNonNull(load, "load is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.projection = requireNonNull(projection, "projection is null");
        this.readerThreads = requireNonNull(readerThreads, "readerThreads is null");
    }

    /** The target's load as planned: the handle that claims, begins, writes and finishes it. */
    public PlannedLoad load() {
        return load;
    }

    public Source source() {
        return source;
    }

    public String targetConnection() {
        return targetConnection;
    }

    /** The stored relations the source reads, as the plan found them; empty when the source cannot tell. */
    public java.util.Set<RelationIdentity> reads() {
        return reads;
    }

    /** The table the target writes, when it existed at plan time. */
    public Optional<RelationIdentity> writes() {
        return writes;
    }

    public Target target() {
        return target;
    }

    /** The target's run ledger; empty with {@code ledger: off}. */
    public Optional<Ledger> ledger() {
        return ledger;
    }

    public SourceProjection projection() {
        return projection;
    }

    /** Where the source's readers may run, as its connector declares. */
    public Source.ThreadModel readerThreads() {
        return readerThreads;
    }

    /** Remembers the connector's partition behind {@code plan}. */
    public PartitionPlan bind(PartitionPlan plan, SourcePartition partition) {
        requireNonNull(plan, "plan is null");
        requireNonNull(partition, "partition is null");
        partitions.put(plan.id(), partition);
        return plan;
    }

    /** The connector's partition for {@code plan}: the one planned here, else rebuilt from its checkpoint. */
    public SourcePartition partition(PartitionPlan plan) throws ConnectorException {
        requireNonNull(plan, "plan is null");
        SourcePartition bound = partitions.get(plan.id());
        if (bound != null) {
            return bound;
        }
        Optional<SourcePartition> restored = plan.checkpoint().isEmpty() ? Optional.empty()
                : source.restore(plan.checkpoint().get());
        if (restored.isEmpty()) {
            throw new ConnectorException(ErrorKind.FAILED, RunnerCode.PLAN002, "partition " + plan.id() + " ("
                    + plan.predicate() + ") was not planned here and " + source.describe() + " cannot rebuild it"
                    + (plan.checkpoint().isEmpty() ? " (it has no checkpoint)" : " from its checkpoint"),
                    "start a new run without --resume");
        }
        partitions.put(plan.id(), restored.get());
        return restored.get();
    }
}
