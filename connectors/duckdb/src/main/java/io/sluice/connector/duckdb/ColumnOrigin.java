package io.sluice.connector.duckdb;

import static java.util.Objects.requireNonNull;

/**
 * Where a value comes from, for data errors: the stream-side column and what the partition reads (a file when it
 * reads one, else the partition's description).
 */
record ColumnOrigin(String column, String where) {
    ColumnOrigin {
        requireNonNull(column, "column is null");
        requireNonNull(where, "where is null");
    }

    @Override
    public String toString() {
        return "column \"" + column + "\" of " + where;
    }
}
