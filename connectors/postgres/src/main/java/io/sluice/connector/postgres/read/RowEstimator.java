package io.sluice.connector.postgres.read;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
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
    public record Estimate(long rows, long bytes) {
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
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return parse(rs, columnCount);
        }
    }

    /** How many EXPLAINs go to the server in one round trip. */
    private static final int EXPLAINS_PER_TRIP = 100;

    /**
     * The estimates of whole tables, read ahead for a pattern: {@code columns} by FROM item; a round trip per
     * hundred, each EXPLAIN as {@link #estimate} runs it.
     */
    static java.util.Map<String, Estimate> estimates(Connection connection, java.util.Map<String, Integer> columns)
            throws SQLException {
        java.util.Map<String, Estimate> estimates = new java.util.HashMap<>();
        List<String> froms = new java.util.ArrayList<>(columns.keySet());
        for (int from = 0; from < froms.size(); from += EXPLAINS_PER_TRIP) {
            List<String> trip = froms.subList(from, Math.min(froms.size(), from + EXPLAINS_PER_TRIP));
            String sql = trip.stream().map(f -> "EXPLAIN (FORMAT JSON) SELECT * FROM " + f)
                    .collect(java.util.stream.Collectors.joining("; "));
            try (Statement s = connection.createStatement()) {
                boolean results = s.execute(sql);
                for (String f : trip) {
                    if (!results) {
                        throw new SQLException("EXPLAIN of " + f + " returned no plan");
                    }
                    try (ResultSet rs = s.getResultSet()) {
                        estimates.put(f, parse(rs, columns.get(f)));
                    }
                    results = s.getMoreResults();
                }
            }
        }
        return estimates;
    }

    private static Estimate parse(ResultSet rs, int columnCount) throws SQLException {
        StringBuilder plan = new StringBuilder();
        while (rs.next()) {
            plan.append(rs.getString(1));
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
