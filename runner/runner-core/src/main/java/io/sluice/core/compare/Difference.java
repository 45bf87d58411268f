package io.sluice.core.compare;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * One row that differs: its key (target column name to value text, or {@code row} to the whole row's text for a
 * table without a key), how, and for a changed row the target columns whose values differ.
 */
public record Difference(Map<String, String> key, Kind kind, List<String> columns) {
    public enum Kind {
        /** The source has the row, the target does not. */
        MISSING,
        /** The target has the row, the source does not. */
        EXTRA,
        /** Both have the key, with other values. */
        CHANGED
    }

    public Difference {
        key = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(key, "key is null")));
        requireNonNull(kind, "kind is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }
}
