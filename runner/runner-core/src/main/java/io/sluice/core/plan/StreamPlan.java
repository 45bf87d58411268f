package io.sluice.core.plan;

import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.Column;
import io.sluice.spi.ColumnPair;
import io.sluice.spi.Source;
import io.sluice.spi.SourceProjection;
import io.sluice.spi.Target;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What was derived for one stream: the resolved source and target, the column mapping with how each column is
 * read, the partitions in run order, and the statements each side runs.
 */
public record StreamPlan(
        StreamSpec spec,
        int degree,
        Source source,
        Target target,
        String targetTable,
        List<ColumnPair> columns,
        SourceProjection projection,
        List<PartitionPlan> partitions,
        String writeStatement,
        String snapshotMode) {
    public StreamPlan {
        requireNonNull(spec, "spec is null");
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(targetTable, "targetTable is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(projection, "projection is null");
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        requireNonNull(writeStatement, "writeStatement is null");
        requireNonNull(snapshotMode, "snapshotMode is null");
    }

    public String name() {
        return spec.name();
    }

    public List<Column> targetColumns() {
        return columns.stream().map(ColumnPair::target).toList();
    }

    public long estimatedRows() {
        return partitions.stream().mapToLong(p -> Math.max(0, p.partition().estimatedRows())).sum();
    }

    public long estimatedBytes() {
        return partitions.stream().mapToLong(p -> Math.max(0, p.partition().estimatedBytes())).sum();
    }
}
