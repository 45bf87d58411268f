package io.sluice.connector.postgres.read;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.RowHash;

import java.math.BigInteger;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of a {@link Digest}: {@code count(*)} and, for CHECKSUM, the sum of a 64-bit hash of each row's text
 * ({@link RowHashSql#row}), computed on the server so no row travels. Both sides must render
 * a value as the same text, so digest connections fix every setting that changes output: time zone, date and
 * interval style, float digits, bytea format and the currency locale.
 */
public final class DigestQuery {
    static final List<String> SETTINGS = List.of(
            "SET TimeZone = 'UTC'",
            "SET DateStyle = 'ISO'",
            "SET IntervalStyle = 'postgres'",
            "SET extra_float_digits = 3",
            "SET bytea_output = 'hex'",
            "SET lc_monetary = 'C'");

    private DigestQuery() {
    }

    /** Applies {@link #SETTINGS} for the session; call in autocommit mode, before any transaction begins. */
    static void prepare(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            for (String setting : SETTINGS) {
                s.execute(setting);
            }
        }
    }

    /**
     * For a statement over one table that reads one partition (a predicate on the key): the key's index where there
     * is one, and one process per statement (compare runs the stream's degree of them at once). The planner's seq scan
     * read the whole table for each partition: comparing 60 M lineitem rows in 8 partitions, filtering out the other
     * partitions' rows cost a third of the time. A predicate no index serves (modulo's hash) still plans a seq scan:
     * an aggregate or a listing ordered by key text has no use for a whole-index scan. Not for a query's joins, whose
     * plans it would bend. JIT off: the disabled seq scan's cost would make every statement compile. Inside a
     * transaction for its statement only (SET LOCAL), else for the session of a connection that reads only that.
     */
    static void narrowScans(Connection connection) throws SQLException {
        String set = connection.getAutoCommit() ? "SET " : "SET LOCAL ";
        try (Statement s = connection.createStatement()) {
            s.execute(set + "enable_seqscan = off");
            s.execute(set + "max_parallel_workers_per_gather = 0");
            s.execute(set + "jit = off");
        }
    }

    /** {@link #SETTINGS} for the rest of the open transaction on {@code connection} only (SET LOCAL). */
    static void prepareLocal(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            for (String setting : SETTINGS) {
                s.execute("SET LOCAL " + setting.substring("SET ".length()));
            }
        }
    }

    /** The digest query of {@code table} (quoted) over {@code columns}, with {@code predicate} when given. */
    static String tableSql(String table, List<Column> columns, Optional<String> predicate, Digest.Level level,
                           RowHash hash) {
        return "SELECT " + selectList(ValueText.of(columns, hash), level, hash) + " FROM " + table
                + predicate.map(p -> " WHERE (" + p + ")").orElse("");
    }

    /** The select list of a digest over {@code expressions}, one value per column in the same order on both sides. */
    static String selectList(List<String> expressions, Digest.Level level, RowHash hash) {
        String count = "count(*)";
        if (level == Digest.Level.COUNT) {
            return count + ", NULL::numeric";
        }
        return count + ", coalesce(sum(" + RowHashSql.row(hash, expressions) + "), 0)::text";
    }

    static Digest run(Connection connection, String sql, Digest.Level level) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            long rows = rs.getLong(1);
            String checksum = rs.getString(2);
            return new Digest(rows, level == Digest.Level.CHECKSUM ? Optional.of(new BigInteger(checksum))
                    : Optional.empty());
        }
    }
}
