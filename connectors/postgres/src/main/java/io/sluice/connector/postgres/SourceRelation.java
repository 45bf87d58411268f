package io.sluice.connector.postgres;

import io.sluice.spi.Column;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A source as resolved against its server: the FROM item to read ({@code "s"."t"} or {@code (query) AS q}), the
 * table when it is one, and its columns.
 *
 * @param ownRowsOnly the table is read without its inheritance children's rows ({@code FROM ONLY})
 */
record SourceRelation(String fromClause, Optional<ResolvedTable> table, String description, List<Column> columns,
                      boolean ownRowsOnly) {
    SourceRelation {
        requireNonNull(fromClause, "fromClause is null");
        requireNonNull(table, "table is null");
        requireNonNull(description, "description is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }
}
