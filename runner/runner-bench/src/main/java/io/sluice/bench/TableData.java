package io.sluice.bench;

import java.nio.file.Path;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One generated TPC-H table: its columns as PostgreSQL types, its row count, and its binary COPY stream dumped once
 * from the source (the bytes every tool moves; MB/s figures divide this size by the wall time).
 */
public record TableData(String name, List<Column> columns, long rows, Path binaryFile, long binaryBytes) {
    public TableData {
        requireNonNull(name, "name is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(binaryFile, "binaryFile is null");
    }

    /** A column with the PostgreSQL type that holds DuckDB's values losslessly. */
    public record Column(String name, String pgType) {
        public Column {
            requireNonNull(name, "name is null");
            requireNonNull(pgType, "pgType is null");
        }
    }

    /** {@code CREATE [UNLOGGED] TABLE schema.table (...)}: a heap with no indexes or constraints. */
    public String createTableSql(String schema, String table, boolean unlogged) {
        StringBuilder sql = new StringBuilder("CREATE ").append(unlogged ? "UNLOGGED " : "").append("TABLE ")
                .append(schema).append('.').append(table).append(" (");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(columns.get(i).name()).append(' ').append(columns.get(i).pgType());
        }
        return sql.append(')').toString();
    }
}
