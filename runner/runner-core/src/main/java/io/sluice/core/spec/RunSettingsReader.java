package io.sluice.core.spec;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The spec's top-level {@code max-parallel-streams} and {@code fail-fast}. */
final class RunSettingsReader {
    private final ValueReader values;

    RunSettingsReader(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    RunSettings read(YamlNode.Mapping root) {
        int parallel = root.entry(SpecKeys.MAX_PARALLEL_STREAMS).flatMap(e -> {
            Optional<Long> n = values.integer(e.value(), SpecKeys.MAX_PARALLEL_STREAMS, "");
            if (n.isPresent() && (n.get() < 1 || n.get() > SpecKeys.MAX_DEGREE)) {
                values.findings().error(SpecCode.SPEC009, e.value().position(), "'max-parallel-streams' must be "
                        + "between 1 and " + SpecKeys.MAX_DEGREE + ", not " + n.get(),
                        "1 runs the streams one after another; n copies n streams at once");
                return Optional.empty();
            }
            return n.map(Long::intValue);
        }).orElse(RunSettings.DEFAULT.maxParallelStreams());
        boolean failFast = root.entry(SpecKeys.FAIL_FAST)
                .flatMap(e -> values.bool(e.value(), SpecKeys.FAIL_FAST, "")).orElse(RunSettings.DEFAULT.failFast());
        return new RunSettings(parallel, failFast);
    }
}
