package io.sluice.spi;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where the changes of one source table go: the target that copied it and, by source column name, the target column
 * each value lands in (a source column not listed is not carried).
 */
public record ChangeRoute(String source, Target target, Map<String, String> columns) {
    public ChangeRoute {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        columns = Map.copyOf(requireNonNull(columns, "columns is null"));
    }
}
