package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.RejectsSpec;
import io.sluice.spi.error.ErrorKind;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code rejects:} limits over the partitions of its run: each partition reserves its rows set aside
 * before it commits, so the partition that would cross {@code max-rows} or {@code max-ratio} rolls back whole, and
 * the run fails naming the count. A resumed run starts from what its done partitions set aside.
 */
final class RejectBudget {
    private final String stream;
    private final RejectsSpec limits;
    private long rejected;
    private long rowsSeen; // loaded plus set aside, of the partitions counted

    RejectBudget(String stream, RejectsSpec limits, long rejectedBefore, long loadedBefore) {
        this.stream = requireNonNull(stream, "stream is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.rejected = rejectedBefore;
        this.rowsSeen = loadedBefore + rejectedBefore;
    }

    /**
     * Counts a partition's rows set aside, {@code loaded} rows beside them; throws when that crosses a limit (the
     * caller then rolls the partition back). {@link #release} undoes it when the commit fails.
     */
    synchronized void reserve(String partition, long partitionRejected, long loaded) {
        long total = rejected + partitionRejected;
        long seen = rowsSeen + partitionRejected + loaded;
        if (limits.maxRows().isPresent() && total > limits.maxRows().getAsLong()) {
            throw tooMany(partition, total + " rows set aside, more than max-rows " + limits.maxRows().getAsLong(),
                    partitionRejected);
        }
        if (limits.maxRatio().isPresent() && partitionRejected > 0 && seen > 0
                && (double) total / seen > limits.maxRatio().getAsDouble()) {
            throw tooMany(partition, total + " of " + seen + " rows read set aside (" + String.format(
                    java.util.Locale.ROOT, "%.4g", (double) total / seen) + "), more than max-ratio "
                    + limits.maxRatio().getAsDouble(), partitionRejected);
        }
        rejected = total;
        rowsSeen = seen;
    }

    /** Whether {@code partitionRejected} more rows already cross {@code max-rows}: a reader stops early then. */
    synchronized boolean crossedBy(long partitionRejected) {
        return limits.maxRows().isPresent() && rejected + partitionRejected > limits.maxRows().getAsLong();
    }

    synchronized void release(long partitionRejected, long loaded) {
        rejected -= partitionRejected;
        rowsSeen -= partitionRejected + loaded;
    }

    private SluiceException tooMany(String partition, String what, long partitionRejected) {
        return new SluiceException(ErrorKind.DATA, RunnerCode.RUN060, "stream '" + stream + "': " + what + " ("
                + partitionRejected + " of them in " + partition + ", which was rolled back: none of its rows or "
                + "rejects were committed)", "look at the rows in " + limits.table() + " (sluice rejects), fix the "
                + "source or the target, then sluice run --resume; or raise the limit in rejects:");
    }
}
