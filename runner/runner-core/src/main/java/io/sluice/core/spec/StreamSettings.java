package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The stream keys one mapping sets, as written in {@code defaults:} or in a stream, each with its position so a
 * check after merging still points at the line that set the value. A stream's value wins over the default's.
 */
record StreamSettings(
        Optional<Located<DistributionSettings>> distribution,
        Optional<Located<Integer>> degree,
        Optional<Located<Long>> rowsPerPartition,
        Optional<Located<LoadMode>> loadMode,
        Optional<ColumnMapping> columnMapping,
        Optional<Consistency> consistency,
        Optional<VerifyMode> verify,
        RetrySettings retry,
        Optional<Located<Duration>> lockTimeout,
        LoadSettings load,
        Optional<RejectsSpec> rejects,
        Optional<Located<BadRows.NulBytes>> nulBytes) {

    static final StreamSettings NONE = new StreamSettings(Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), RetrySettings.NONE, Optional.empty(),
            LoadSettings.NONE, Optional.empty(), Optional.empty());

    StreamSettings {
        requireNonNull(distribution, "distribution is null");
        requireNonNull(degree, "degree is null");
        requireNonNull(rowsPerPartition, "rowsPerPartition is null");
        requireNonNull(loadMode, "loadMode is null");
        requireNonNull(columnMapping, "columnMapping is null");
        requireNonNull(consistency, "consistency is null");
        requireNonNull(verify, "verify is null");
        requireNonNull(retry, "retry is null");
        requireNonNull(lockTimeout, "lockTimeout is null");
        requireNonNull(load, "load is null");
        requireNonNull(rejects, "rejects is null");
        requireNonNull(nulBytes, "nulBytes is null");
    }

    /** These settings over {@code defaults}: whole values, except {@code retry}, which merges key by key. */
    StreamSettings over(StreamSettings defaults) {
        return new StreamSettings(
                distribution.or(defaults::distribution),
                degree.or(defaults::degree),
                rowsPerPartition.or(defaults::rowsPerPartition),
                loadMode.or(defaults::loadMode),
                columnMapping.or(defaults::columnMapping),
                consistency.or(defaults::consistency),
                verify.or(defaults::verify),
                retry.over(defaults.retry),
                lockTimeout.or(defaults::lockTimeout),
                load.over(defaults.load),
                rejects.or(defaults::rejects),
                nulBytes.or(defaults::nulBytes));
    }

    record Located<T>(T value, Position position) {
        Located {
            requireNonNull(value, "value is null");
            requireNonNull(position, "position is null");
        }
    }

    record DistributionSettings(DistributionMethod method, Position methodPosition, Optional<Located<String>> key,
                                Optional<Located<String>> valuesQuery) {
        DistributionSettings {
            requireNonNull(method, "method is null");
            requireNonNull(methodPosition, "methodPosition is null");
            requireNonNull(key, "key is null");
            requireNonNull(valuesQuery, "valuesQuery is null");
        }
    }

    /** The keys that go with {@code load-mode}, each merged with the default's on its own. */
    record LoadSettings(Optional<Located<List<String>>> mergeKey, Optional<Located<LoadRequest.OnDuplicate>> onDuplicate,
                        Optional<Located<Boolean>> deleteMissing, Optional<Located<Boolean>> keepPrevious,
                        Optional<Located<LoadRequest.Indexes>> indexes, Optional<Located<Boolean>> resetSequences,
                        Optional<Located<SchemaChanges>> schemaChanges) {
        static final LoadSettings NONE = new LoadSettings(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

        LoadSettings {
            requireNonNull(mergeKey, "mergeKey is null");
            requireNonNull(onDuplicate, "onDuplicate is null");
            requireNonNull(deleteMissing, "deleteMissing is null");
            requireNonNull(keepPrevious, "keepPrevious is null");
            requireNonNull(indexes, "indexes is null");
            requireNonNull(resetSequences, "resetSequences is null");
            requireNonNull(schemaChanges, "schemaChanges is null");
        }

        LoadSettings over(LoadSettings defaults) {
            return new LoadSettings(mergeKey.or(defaults::mergeKey), onDuplicate.or(defaults::onDuplicate),
                    deleteMissing.or(defaults::deleteMissing), keepPrevious.or(defaults::keepPrevious),
                    indexes.or(defaults::indexes), resetSequences.or(defaults::resetSequences),
                    schemaChanges.or(defaults::schemaChanges));
        }
    }

    record RetrySettings(Optional<Integer> maxAttempts, Optional<Located<Duration>> initialBackoff,
                         Optional<Located<Duration>> maxBackoff) {
        static final RetrySettings NONE = new RetrySettings(Optional.empty(), Optional.empty(), Optional.empty());

        RetrySettings {
            requireNonNull(maxAttempts, "maxAttempts is null");
            requireNonNull(initialBackoff, "initialBackoff is null");
            requireNonNull(maxBackoff, "maxBackoff is null");
        }

        RetrySettings over(RetrySettings defaults) {
            return new RetrySettings(maxAttempts.or(defaults::maxAttempts), initialBackoff.or(defaults::initialBackoff),
                    maxBackoff.or(defaults::maxBackoff));
        }

        RetrySpec resolve() {
            return new RetrySpec(maxAttempts.orElse(RetrySpec.DEFAULT.maxAttempts()),
                    initialBackoff.map(Located::value).orElse(RetrySpec.DEFAULT.initialBackoff()),
                    maxBackoff.map(Located::value).orElse(RetrySpec.DEFAULT.maxBackoff()));
        }
    }
}
