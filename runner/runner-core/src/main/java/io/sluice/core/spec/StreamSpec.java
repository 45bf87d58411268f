package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One entry of {@code streams:} with the {@code defaults:} applied.
 *
 * @param degree as written: &gt; 0 concurrent partitions, &lt; 0 available cores / |degree|
 * @param rowsPerPartition {@code batch-size}: about how many rows one partition holds
 * @param rowsPerPartitionPlanned whether the source's connector splits this stream's distribution method by
 *        {@code rowsPerPartition} ({@link io.sluice.spi.connector.SourceCapabilities}); when not, the value changes nothing
 * @param lockTimeout the longest wait for a lock someone else holds; zero waits without limit
 * @param load         {@code load-mode} and the keys that go with it
 * @param incremental  {@code incremental:}: each run reads only the rows whose cursor grew since the last
 *                     successful run
 * @param columnRules  {@code columns:} and {@code mask-key}: columns left out, renamed, computed or masked
 * @param hooks        {@code before:} and {@code after:}: SQL run on the target around the load, once per run
 * @param checks       {@code checks:}: assertions on what was loaded, evaluated before the data goes live
 */
public record StreamSpec(
        String name,
        EndpointSpec source,
        EndpointSpec target,
        Distribution distribution,
        int degree,
        long rowsPerPartition,
        boolean rowsPerPartitionPlanned,
        LoadSpec load,
        ColumnMapping columnMapping,
        ColumnRules columnRules,
        Consistency consistency,
        VerifyMode verify,
        RetrySpec retry,
        Duration lockTimeout,
        Optional<IncrementalSpec> incremental,
        StreamHooks hooks,
        List<CheckSpec> checks,
        Optional<RejectsSpec> rejects,
        BadRows.NulBytes nulBytes,
        Position position) {
    public StreamSpec {
        requireNonNull(name, "name is null");
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(distribution, "distribution is null");
        requireNonNull(load, "load is null");
        requireNonNull(columnMapping, "columnMapping is null");
        requireNonNull(columnRules, "columnRules is null");
        requireNonNull(consistency, "consistency is null");
        requireNonNull(verify, "verify is null");
        requireNonNull(retry, "retry is null");
        requireNonNull(lockTimeout, "lockTimeout is null");
        requireNonNull(incremental, "incremental is null");
        requireNonNull(hooks, "hooks is null");
        checks = List.copyOf(requireNonNull(checks, "checks is null"));
        requireNonNull(rejects, "rejects is null");
        requireNonNull(nulBytes, "nulBytes is null");
        requireNonNull(position, "position is null");
        if (degree == 0) {
            throw new IllegalArgumentException("degree must not be 0");
        }
        if (rowsPerPartition <= 0) {
            throw new IllegalArgumentException("rowsPerPartition must be positive: " + rowsPerPartition);
        }
    }

    /**
     * This stream's settings for one object its source's pattern matched: its own name, source and target, and the
     * distribution with that object's key.
     */
    public StreamSpec forObject(String objectName, EndpointSpec objectSource, EndpointSpec objectTarget,
                                Distribution objectDistribution) {
        return new StreamSpec(objectName, objectSource, objectTarget, objectDistribution, degree, rowsPerPartition,
                rowsPerPartitionPlanned, load, columnMapping, columnRules.forPatternTable(), consistency, verify,
                retry, lockTimeout,
                incremental, hooks, checks, rejects, nulBytes, position);
    }

    /**
     * This stream for a run that writes no rows ({@code --schema-only}): an append (nothing is emptied or swapped),
     * without checks or verification, which would compare rows it did not copy.
     */
    public StreamSpec forSchemaOnly() {
        return new StreamSpec(name, source, target, distribution, degree, rowsPerPartition, rowsPerPartitionPlanned,
                load.appending(), columnMapping, columnRules, consistency, VerifyMode.NONE, retry, lockTimeout,
                incremental, hooks, List.of(), rejects, nulBytes, position);
    }

    /** The number of partitions that run at once on this machine. */
    public int effectiveDegree(int availableCores) {
        return degree > 0 ? degree : Math.max(1, availableCores / -degree);
    }
}
