package io.sluice.connector.duckdb;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK301;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK302;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK303;

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

    static String shown(String value) {
        if (value.length() <= SHOWN_CHARS) {
            return "'" + value + "'";
        }
        return "'" + value.substring(0, SHOWN_CHARS) + "…'";
    }
}
