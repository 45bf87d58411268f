package io.sluice.connector.postgres.target;

import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * A stream's {@code before:} or {@code after:} statements, run in one transaction with their mark: committed together,
 * so a hook has run exactly when its mark says so. Reading the marks takes the stream's ledger row, so two processes
 * of a joined run cannot both find it unmarked. A statement PostgreSQL will not run in a transaction block (VACUUM,
 * CREATE INDEX CONCURRENTLY) is refused by the server, with its message.
 */
final class Hooks {
    private Hooks() {
    }

    static boolean run(PostgresConnections connections, PostgresLedgerStore ledger, String phase,
                       List<String> statements, LoadMarks marks) throws ConnectorException {
        String mark = "hook-" + phase;
        String what = "running the " + phase + " hook";
        try (Connection c = connections.open(what)) {
            c.setAutoCommit(false);
            try {
                var tx = ledger.rowsOn(c);
                if (marks.reading().apply(tx).containsKey(mark)) {
                    c.rollback();
                    return false;
                }
                for (int i = 0; i < statements.size(); i++) {
                    try (Statement s = c.createStatement()) {
                        s.execute(statements.get(i));
                    } catch (SQLException e) {
                        throw connections.errors().translate(e, PostgresErrors.Phase.COPY, phase + " hook, statement "
                                + (i + 1) + " of " + statements.size() + " (" + statements.get(i) + ")");
                    }
                }
                marks.writing(mark, Instant.now().toString()).apply(tx);
                c.commit();
                return true;
            } catch (ConnectorException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // closing rolls back too
                }
                throw e;
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, what);
        }
    }
}
