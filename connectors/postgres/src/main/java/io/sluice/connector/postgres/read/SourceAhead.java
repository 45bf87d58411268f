package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.TablesAhead;

import io.sluice.spi.data.Column;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A table source as read ahead of its stream's planning, with the other tables of its pattern: the table, its
 * columns and, read without a condition, its row estimate. Only a table that is there and readable is read ahead;
 * any other goes the per-table way, which says what is wrong with it.
 */
public record SourceAhead(ResolvedTable table, List<Column> columns, Optional<RowEstimator.Estimate> estimate) {
    public SourceAhead {
        requireNonNull(table, "table is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(estimate, "estimate is null");
    }

    /**
     * The tables {@code names} (each read with its inheritance children's rows or not, {@code inherited}), with the
     * estimates of those in {@code estimated}: three round trips, and one per hundred estimates.
     */
    public static Map<QualifiedName, SourceAhead> read(Connection c, List<QualifiedName> names,
                                                       Map<QualifiedName, Boolean> inherited,
                                                       java.util.Set<QualifiedName> estimated) throws SQLException {
        Map<QualifiedName, TablesAhead.Table> tables = TablesAhead.tables(c, names, "SELECT");
        Map<QualifiedName, String> froms = new LinkedHashMap<>();
        Map<String, Integer> columns = new HashMap<>();
        tables.forEach((name, t) -> {
            if (t.table().isPresent() && t.granted() && estimated.contains(name)) {
                String from = (inherited.getOrDefault(name, true) ? "" : "ONLY ") + t.table().get().quoted();
                froms.put(name, from);
                columns.put(from, t.columns().size());
            }
        });
        Map<String, RowEstimator.Estimate> estimates = RowEstimator.estimates(c, columns);
        Map<QualifiedName, SourceAhead> ahead = new LinkedHashMap<>();
        tables.forEach((name, t) -> {
            if (t.table().isPresent() && t.granted()) {
                ahead.put(name, new SourceAhead(t.table().get(), t.columns(),
                        Optional.ofNullable(froms.get(name)).map(estimates::get)));
            }
        });
        return ahead;
    }
}
