package io.sluice.spi.changes;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.SchemaChanges;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where the changes of one source table go: the change sink of the target that copied it
 * ({@code Target.changeSink()}, one per target) and, by source column name, the target column
 * each value lands in (a source column not listed is not carried), and what a column added at the source since the
 * stream was planned (one not in {@code sourceColumns}) does ({@code schema-changes}: added to the target, ignored,
 * or a failure). {@code sourceColumns}: the source table's columns as the run read them, with their types and the
 * value their rows from before hold ({@link Column#earlierRows()}), so a carried column the target lacks is added
 * with it before any change comes.
 */
public record ChangeRoute(String source, ChangeSink target, Map<String, String> columns,
                          java.util.List<Column> sourceColumns, SchemaChanges schemaChanges) {
    public ChangeRoute {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        columns = Map.copyOf(requireNonNull(columns, "columns is null"));
        sourceColumns = java.util.List.copyOf(requireNonNull(sourceColumns, "sourceColumns is null"));
        requireNonNull(schemaChanges, "schemaChanges is null");
    }
}
