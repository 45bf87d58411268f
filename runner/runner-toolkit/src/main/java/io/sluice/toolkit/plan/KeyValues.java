package io.sluice.toolkit.plan;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * Asks a SQL source's server for the values {@link KeyBuckets} cuts by: ntile boundaries (the least key of each
 * tile but the first, one sorted pass with SQL:2003's {@code NTILE}) and data-driven values (one {@code GROUP BY}
 * with counts, or a user's values-query). The connector says how the server shows a key value ({@code shown}, e.g. as
 * text, so no driver formats it) and how a value read back becomes a literal of its dialect.
 */
public final class KeyValues {
    private KeyValues() {
    }

    /** A key value as a literal of the source's SQL, and as text for partition ids. */
    public record KeyValue(String literal, String text) {
        public KeyValue {
            requireNonNull(literal, "literal is null");
            requireNonNull(text, "text is null");
        }
    }

    /** Reads column {@code column} of the current row as a key value; empty for SQL NULL. */
    @FunctionalInterface
    public interface Reader {
        Optional<KeyValue> read(ResultSet rs, int column) throws SQLException;
    }

    /** Values with the rows each holds (-1 when a values-query named them). */
    public record Counted(List<KeyValue> values, List<Long> rows, long nullRows) {
        public Counted {
            values = List.copyOf(values);
            rows = List.copyOf(rows);
        }
    }

    /** More distinct values than partitions a plan may have. */
    public static final class TooManyValues extends Exception {
        public TooManyValues(int max) {
            super("more than " + max + " distinct values");
        }
    }

    /**
     * Ascending boundaries cutting the non-NULL keys of {@code relation} into {@code tiles} equal counts; repeated
     * values collapse, so a skewed key gives fewer, larger ranges rather than a row in two.
     */
    public static List<KeyValue> ntileBoundaries(Connection connection, String relation, String key, int tiles,
                                                 UnaryOperator<String> shown, Reader reader) throws SQLException {
        requireNonNull(connection, "connection is null");
        requireNonNull(reader, "reader is null");
        List<KeyValue> boundaries = new ArrayList<>();
        if (tiles <= 1) {
            return boundaries;
        }
        // The running maximum keeps the boundaries from ever going down, even where a server sorts by less than it
        // compares (MySQL sorts strings by their first max_sort_length bytes): half-open ranges between
        // non-decreasing boundaries hold every key exactly once.
        String sql = "SELECT " + shown.apply("sluice_m") + " FROM (SELECT sluice_t, MAX(sluice_v) OVER (ORDER BY "
                + "sluice_t ROWS UNBOUNDED PRECEDING) AS sluice_m FROM (SELECT sluice_t, MIN(sluice_k) AS sluice_v "
                + "FROM (SELECT " + key + " AS sluice_k, NTILE(" + tiles + ") OVER (ORDER BY " + key + ") AS sluice_t "
                + "FROM " + relation + " WHERE " + key + " IS NOT NULL) sluice_s GROUP BY sluice_t) sluice_b) sluice_r "
                + "WHERE sluice_t > 1 ORDER BY sluice_t";
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                Optional<KeyValue> value = reader.read(rs, 1);
                if (value.isPresent() && (boundaries.isEmpty()
                        || !boundaries.getLast().literal().equals(value.get().literal()))) {
                    boundaries.add(value.get());
                }
            }
        }
        return boundaries;
    }

    /** The key's distinct values in order, with their row counts, at most {@code max}. */
    public static Counted distinct(Connection connection, String relation, String key, int max,
                                   UnaryOperator<String> shown, Reader reader) throws SQLException, TooManyValues {
        String sql = "SELECT " + shown.apply("sluice_k") + ", COUNT(*) FROM (SELECT " + key + " AS sluice_k FROM " + relation
                + ") sluice_s GROUP BY sluice_k ORDER BY sluice_k";
        List<KeyValue> values = new ArrayList<>();
        List<Long> rows = new ArrayList<>();
        long nullRows = 0;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                Optional<KeyValue> value = reader.read(rs, 1);
                if (value.isEmpty()) {
                    nullRows = rs.getLong(2);
                    continue;
                }
                if (values.size() == max) {
                    throw new TooManyValues(max);
                }
                values.add(value.get());
                rows.add(rs.getLong(2));
            }
        }
        return new Counted(values, rows, nullRows);
    }

    /**
     * The values of the user's {@code valuesQuery} (its first column, NULLs dropped) as the source itself tells them
     * apart: the key's rows holding one of them, grouped by the key ({@code WHERE key IN (...) GROUP BY key}), so two
     * values the server calls equal ({@code 'a'} and {@code 'A'} under a case-insensitive collation, {@code 1} and
     * {@code 1.0}) make one partition, never two reading the same rows. A value no row holds makes none. At most
     * {@code max}.
     */
    public static Counted queried(Connection connection, String relation, String key, String valuesQuery, int max,
                                  UnaryOperator<String> shown, Reader listed, Reader reader)
            throws SQLException, TooManyValues {
        Map<String, KeyValue> values = new LinkedHashMap<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(valuesQuery)) {
            while (rs.next()) {
                Optional<KeyValue> value = listed.read(rs, 1);
                if (value.isPresent()) {
                    values.putIfAbsent(value.get().literal(), value.get());
                    if (values.size() > max) {
                        throw new TooManyValues(max);
                    }
                }
            }
        }
        if (values.isEmpty()) {
            return new Counted(List.of(), List.of(), -1);
        }
        Counted present = distinct(connection, relation + " WHERE " + key + " IN (" + String.join(", ",
                values.keySet()) + ")", key, max, shown, reader);
        return new Counted(present.values(), present.rows(), -1);
    }
}
