package io.sluice.connector.postgres.source;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Row and byte estimates from the planner ({@code EXPLAIN}), which copes with never-analyzed tables, views and
 * queries alike and uses the key's statistics for a partition's condition. Nothing is read.
 */
public final class RowEstimator {
    private static final Pattern ROWS = Pattern.compile("\"Plan Rows\":\\s*([0-9.eE+]+)");
    private static final Pattern WIDTH = Pattern.compile("\"Plan Width\":\\s*([0-9]+)");

    /** Rows and bytes of binary COPY data (row width plus per-row and per-field framing). */
    record Estimate(long rows, long bytes) {
        static final Estimate UNKNOWN = new Estimate(-1, -1);

        Estimate scaled(double fraction) {
            return rows < 0 ? this : new Estimate(Math.round(rows * fraction), Math.round(bytes * fraction));
        }
    }

    private final Connection connection;
    private final int columnCount;

    RowEstimator(Connection connection, int columnCount) {
        this.connection = requireNonNull(connection, "connection is null");
        this.columnCount = columnCount;
    }

    Estimate estimate(String fromClause, Optional<String> where) throws SQLException {
        String sql = "EXPLAIN (FORMAT JSON) SELECT * FROM " + fromClause + where.map(w -> " WHERE " + w).orElse("");
        StringBuilder plan = new StringBuilder();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1));
            }
        }
        Matcher rows = ROWS.matcher(plan);
        Matcher width = WIDTH.matcher(plan);
        if (!rows.find() || !width.find()) {
            return Estimate.UNKNOWN;
        }
        long rowCount = Math.round(Double.parseDouble(rows.group(1)));
        long rowBytes = Long.parseLong(width.group(1)) + 2 + 4L * columnCount;
        return new Estimate(rowCount, rowCount * rowBytes);
    }
}
