package io.sluice.spi.write;

import io.sluice.spi.data.TablePlaceholders;
import static java.util.Objects.requireNonNull;

/**
 * One of a stream's {@code checks:}, as the target evaluates it before the loaded data goes live (a replace: on the new
 * table before the swap; a truncate in one transaction: before its commit; else after the last partition): a query
 * that returns one number, which passes when it lies in {@code [min, max]}.
 *
 * @param sql         the query; {@code {table}} stands for the table checked (a replace's new table before the swap)
 * @param expectation the bound in words for the failure message, e.g. {@code 0} or {@code at least 900 (0.9 x 1000,
 *                    the last done run's)}
 */
public record LoadCheck(String name, String sql, long min, long max, String expectation) {
    /** The placeholder a check's query names the checked table with ({@link TablePlaceholders}). */
    public static final String TABLE = TablePlaceholders.TABLE;

    public LoadCheck {
        requireNonNull(name, "name is null");
        requireNonNull(sql, "sql is null");
        requireNonNull(expectation, "expectation is null");
        if (min > max) {
            throw new IllegalArgumentException("min " + min + " above max " + max);
        }
    }

    /** The query with its placeholders ({@link TablePlaceholders}) replaced for {@code quotedTable}. */
    public String sqlFor(String quotedTable) {
        return TablePlaceholders.expand(sql, quotedTable);
    }

    public boolean passes(long value) {
        return value >= min && value <= max;
    }
}
