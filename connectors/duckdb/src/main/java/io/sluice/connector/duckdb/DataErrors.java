package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK301;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK302;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK303;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK304;

/** The DATA failures a value can cause while it is encoded; each names column, file and value. */
final class DataErrors {
    private static final int SHOWN_CHARS = 40;

    private DataErrors() {
    }

    static ConnectorException tooLong(ColumnOrigin origin, PgType target, String value) {
        int chars = value.codePointCount(0, value.length());
        return new ConnectorException(ErrorKind.DATA, DUCK301,
                "value too long for " + target + " in " + origin + ": " + shown(value) + " (" + chars + " characters)",
                "widen the target column, or shorten the value in the query, e.g. left(col, " + target.length() + ")");
    }

    static ConnectorException outOfRange(ColumnOrigin origin, PgType target, String value) {
        return new ConnectorException(ErrorKind.DATA, DUCK302,
                "value out of range for " + target + " in " + origin + ": " + shown(value),
                "widen the target column (more precision), or filter or cast the value in the query");
    }

    static ConnectorException unreadable(ColumnOrigin origin, PgType target, String value, String why) {
        return new ConnectorException(ErrorKind.DATA, DUCK303,
                "cannot convert value for " + target + " in " + origin + ": " + shown(value) + " (" + why + ")",
                "fix the value at the source, or convert it in the query");
    }

    static ConnectorException dateOutOfRange(ColumnOrigin origin, String date, String target) {
        return new ConnectorException(ErrorKind.DATA, DUCK302, "date out of range for " + target + " in " + origin
                + ": " + date + " (PostgreSQL's " + target + " ends " + ("date".equals(target) ? "5874897-12-31"
                : "294276-12-31") + ", and starts 4713-01-01 BC)", "filter or clamp the value in the query, or set "
                + "rejects: to set such rows aside");
    }

    static ConnectorException nulByte(ColumnOrigin origin, String value) {
        return new ConnectorException(ErrorKind.DATA, DUCK304, "NUL character in " + origin + ": "
                + shown(value.replace("\u0000", "\\0")), "set nul-bytes: strip to drop NUL characters, or "
                + "replace them in the query, e.g. replace(col, chr(0), '')");
    }

    /** Whether {@code e} is one of these: a value its conversion refused, which a row set aside can carry. */
    static boolean isValueError(ConnectorException e) {
        String code = e.code();
        return e.kind() == ErrorKind.DATA && (code.equals(DUCK301.name()) || code.equals(DUCK302.name())
                || code.equals(DUCK303.name()) || code.equals(DUCK304.name()));
    }

    static String shown(String value) {
        if (value.length() <= SHOWN_CHARS) {
            return "'" + value + "'";
        }
        return "'" + value.substring(0, SHOWN_CHARS) + "…'";
    }
}
