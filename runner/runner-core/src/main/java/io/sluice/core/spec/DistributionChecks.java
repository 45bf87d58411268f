package io.sluice.core.spec;

import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;

import java.util.List;
import java.util.Optional;

import static io.sluice.core.spec.ValueReader.in;
import static java.util.Objects.requireNonNull;

/**
 * A stream's distribution against what its source's connector declares ({@link SourceCapabilities}): a method the
 * source can plan, the keys the method takes, and a {@code batch-size} the method follows. What a method needs of
 * the source beyond that (ctid a table, say) is the connector's own lint: it knows its options, and each mistake is
 * reported once.
 */
final class DistributionChecks {
    private final ValueReader values;

    DistributionChecks(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    /** The merged distribution, after reporting what does not fit; {@code source} is absent when unknown. */
    Distribution distribution(StreamSettings merged, Optional<ConnectorFactory> source, String where) {
        if (merged.distribution().isEmpty()) {
            return SpecKeys.DEFAULT_DISTRIBUTION;
        }
        StreamSettings.DistributionSettings d = merged.distribution().get().value();
        DistributionMethod method = d.method();
        String spelled = SpecKeys.spelling(method);
        Optional<SourceCapabilities> capabilities = source.map(ConnectorFactory::sourceCapabilities);
        if (capabilities.isPresent() && !capabilities.get().supports(method)) {
            values.findings().error(SpecCode.SPEC016, d.methodPosition(), "distribution method '" + spelled
                            + "'" + in(where) + " is not supported by the " + source.get().name() + " source",
                    "use one of: " + String.join(", ", spellings(capabilities.get().distributionMethods())));
        }
        if (method.needsKey() && d.key().isEmpty()) {
            values.findings().error(SpecCode.SPEC017, d.methodPosition(), "distribution method '" + spelled
                    + "'" + in(where) + " needs a 'key'", "add 'key:' with a column or SQL expression to split on");
        }
        if (!method.needsKey() && d.key().isPresent()) {
            values.findings().error(SpecCode.SPEC017, d.key().get().position(), "'key'" + in(where)
                            + " does not apply to distribution method '" + spelled + "'",
                    "remove 'key', or use range, ntile, modulo or data-driven");
        }
        if (method != DistributionMethod.DATA_DRIVEN && d.valuesQuery().isPresent()) {
            values.findings().error(SpecCode.SPEC017, d.valuesQuery().get().position(), "'values-query'" + in(where)
                    + " applies only to distribution method 'data-driven', not '" + spelled + "'",
                    "remove 'values-query', or use method data-driven");
        }
        return new Distribution(method, d.key().map(StreamSettings.Located::value),
                d.valuesQuery().map(StreamSettings.Located::value));
    }

    /**
     * Whether the source splits {@code distribution} by rows per partition. When it does not and the stream sets
     * {@code batch-size} itself ({@code own}; one inherited from {@code defaults:} may be meant for other streams),
     * warns that the key changes nothing.
     */
    boolean rowsPerPartitionPlanned(StreamSettings own, Distribution distribution, Optional<ConnectorFactory> source,
                                    String where) {
        if (source.isEmpty()) {
            return true; // its connection is unknown: already an error
        }
        SourceCapabilities capabilities = source.get().sourceCapabilities();
        DistributionMethod method = distribution.method();
        if (capabilities.plansRowsPerPartition(method)) {
            return true;
        }
        if (own.rowsPerPartition().isPresent() && capabilities.supports(method)) {
            List<String> followers = spellings(capabilities.rowsPerPartitionMethods());
            values.findings().warning(SpecCode.SPEC026, own.rowsPerPartition().get().position(), "'batch-size'"
                    + in(where) + " changes nothing: the " + source.get().name() + " source does not split "
                    + "distribution method '" + SpecKeys.spelling(method) + "' by rows per partition",
                    "remove 'batch-size'" + (followers.isEmpty() ? "; no method of this source uses it"
                            : ", or use a method that splits by it: " + String.join(", ", followers)));
        }
        return false;
    }

    private static List<String> spellings(java.util.Set<DistributionMethod> methods) {
        return methods.stream().sorted().map(SpecKeys::spelling).toList();
    }
}
