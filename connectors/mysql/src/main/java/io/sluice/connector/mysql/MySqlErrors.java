package io.sluice.connector.mysql;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.Redactor;

import java.sql.SQLException;

/** The server's errors as Sluice's: a code by the server's error number or SQLSTATE, the message redacted. */
final class MySqlErrors {
    private MySqlErrors() {
    }

    static ConnectorException translate(SQLException e, String context, Redactor redactor) {
        int number = e.getErrorCode();
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String message = context + ": " + redactor.redact(String.valueOf(e.getMessage())) + " [" + number
                + (state.isEmpty() ? "" : ", SQLSTATE " + state) + "]";
        if (state.startsWith("08") && number != 1045) {
            // the connection broke: a retry on a new one may go through
            return new ConnectorException(ErrorKind.TRANSIENT, MySqlCode.MY101, message, "check that the server is "
                    + "up and reachable; the partition is retried", e);
        }
        // 1045 access denied (login), 2002/2003 cannot connect
        if (number == 1045 || number == 2002 || number == 2003) {
            return new ConnectorException(ErrorKind.PREFLIGHT, MySqlCode.MY101, message, "check host, port, user "
                    + "and password, and that the server accepts connections from here", e);
        }
        // 1142 table access denied, 1044 database access denied, 1227 needs a privilege (RELOAD, LOCK TABLES)
        if (number == 1142 || number == 1044 || number == 1227 || number == 1143) {
            return new ConnectorException(ErrorKind.PREFLIGHT, MySqlCode.MY103, message, "GRANT the user SELECT on "
                    + "the tables (and LOCK TABLES for one snapshot across readers), or set consistency: none", e);
        }
        // 1146 no such table, 1054 unknown column, 1064 syntax, 1049 unknown database
        if (number == 1146 || number == 1054 || number == 1064 || number == 1049) {
            return new ConnectorException(ErrorKind.PREFLIGHT, MySqlCode.MY102, message, "check the table, column "
                    + "and query names in the spec", e);
        }
        // 1317 query interrupted (KILL QUERY)
        if (number == 1317) {
            return new ConnectorException(ErrorKind.FAILED, MySqlCode.MY105, message, "nothing to fix: the run "
                    + "stopped the read", e);
        }
        return new ConnectorException(ErrorKind.FAILED, MySqlCode.MY104, message, "see the server's message; run "
                + "again once it is fixed (the ledger resumes)", e);
    }
}
