package io.sluice.spi.write;

import io.sluice.spi.data.Column;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** A resolved target table: its qualified, quoted name and its columns in table order. */
public record TargetTable(String qualifiedName, List<Column> columns) {
    public TargetTable {
        requireNonNull(qualifiedName, "qualifiedName is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }
}
