package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCode;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadCheck;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A stream's {@code checks:} evaluated on one table in the caller's transaction, which sees what is about to go live
 * (a replace's new table before the swap, a truncate's rows before its commit). Every check runs; all that fail are
 * told at once, each with its value, its bound and its query, as a verification failure (exit 5).
 */
public final class CheckRun {
    private CheckRun() {
    }

    /** The checks' values by name; throws when one fails. {@code when} says for the message what was checked. */
    public static Map<String, Long> evaluate(Connection c, List<LoadCheck> checks, String table, String when,
                                             String whatStays) throws SQLException, ConnectorException {
        Map<String, Long> values = new LinkedHashMap<>();
        List<String> failed = new ArrayList<>();
        for (LoadCheck check : checks) {
            String sql = check.sqlFor(table);
            Long value;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                value = rs.next() ? (Long) rs.getObject(1, Long.class) : null;
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("42") && !e.getSQLState().startsWith("22")) {
                    throw e;
                }
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG227, "check '" + check.name()
                        + "' cannot be evaluated " + when + ": " + firstLine(e.getMessage()) + "; query: " + sql,
                        "fix the check's query: one number, 0 when all is well (" + LoadCheck.TABLE + " is the table "
                                + "checked)");
            }
            if (value == null || !check.passes(value)) {
                failed.add("'" + check.name() + "' found " + (value == null ? "no number" : value) + ", expected "
                        + check.expectation() + " (" + sql + ")");
            } else {
                values.put(check.name(), value);
            }
        }
        if (!failed.isEmpty()) {
            throw new ConnectorException(ErrorKind.VERIFICATION, PostgresCode.PG226, failed.size() + " of "
                    + checks.size() + " check(s) failed " + when + ": " + String.join("; ", failed) + "; "
                    + whatStays, "look at the rows the query finds in the source, or change the check; then run "
                    + "again");
        }
        return values;
    }

    /** Each passing check's value as the mark {@code check.<name>}: what a later run's ratio compares with. */
    static void mark(Map<String, Long> values, LoadMarks marks, LedgerTransaction tx) throws ConnectorException {
        for (Map.Entry<String, Long> value : values.entrySet()) {
            marks.writing(LoadMarks.CHECK_PREFIX + value.getKey(), Long.toString(value.getValue())).apply(tx);
        }
    }

    /** For {@code sluice plan}: what each check runs, and when. */
    static void describe(List<LoadCheck> checks, String table, String when, List<String> statements) {
        for (LoadCheck check : checks) {
            statements.add(when + ": check " + check.name() + " (expects " + check.expectation() + "): "
                    + check.sqlFor(table));
        }
    }

    private static String firstLine(String message) {
        String text = message == null ? "" : message.replaceFirst("^ERROR: ", "");
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
