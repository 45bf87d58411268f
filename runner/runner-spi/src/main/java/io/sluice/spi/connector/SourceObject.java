package io.sluice.spi.connector;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * One object a source's pattern matched (a table of {@code table: "sales.*"}): the options of a source that reads it
 * alone, the names a target template may use ({@code schema}, {@code table}), its primary key (for
 * {@code key: primary-key}) and its estimated size (the largest streams start first).
 *
 * @param name          how the object is named in the expanded stream's name, e.g. {@code sales.orders}
 * @param primaryKey    the primary key's columns in key order; empty when it has none
 */
public record SourceObject(String name, Options options, Map<String, String> names, List<String> primaryKey,
                           long estimatedBytes) {
    public SourceObject {
        requireNonNull(name, "name is null");
        requireNonNull(options, "options is null");
        names = Map.copyOf(requireNonNull(names, "names is null"));
        primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
    }
}
