package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.TargetCatalog;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * One concern of a table's load beyond its partitions' COPY (creating the table, the shadow and its swap, a merge's
 * staging and keys, dropping and rebuilding indexes, sequences). A step says what it will do ({@link #describe}, the
 * statements {@code sluice plan} prints), does its part before the first partition and after the last, and marks what
 * it did in the ledger in the transaction that did it, so a resumed run skips what is marked and redoes the rest.
 * {@link PostgresLoad} decides from the load mode which steps run, and in which order.
 */
public interface LoadStep {
    /** Adds the statements this step will run, in order, for {@code sluice plan}. */
    void describe(List<String> statements);

    /** Before the first partition, before the preparing transaction: what must be held outside it. */
    default void hold(LoadMarks marks) throws ConnectorException {
    }

    /**
     * Whether {@link #begin} may do anything for this load, as known once {@link #hold} ran: when no step may, the
     * preparing transaction and its read of the marks are skipped (two round trips a table of a many-table run).
     */
    default boolean begins() {
        return true;
    }

    /**
     * Before the first partition, in the one transaction that prepares the table ({@code done}: the stream's marks
     * as that transaction began); the transaction's marks commit with it.
     */
    default void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                       LedgerTransaction tx) throws SQLException, ConnectorException {
    }

    /** After the last partition, in transactions of its own ({@code done}: the stream's marks then). */
    default void finish(LoadMarks marks, Map<String, String> done) throws ConnectorException {
    }

    /** After the stream failed: puts back what the step took away for the load ({@code done}: the marks then). */
    default void abort(LoadMarks marks, Map<String, String> done) throws ConnectorException {
    }
}
