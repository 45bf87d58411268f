package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * {@code reset-sequences} (by default on for a truncate, a replace and a table the load creates): after the last
 * partition each identity or serial sequence of the table, and each sequence a column's default draws from that no
 * column owns, moves past the largest value its column holds, never back.
 * Running it again changes nothing, so it needs no mark.
 */
public final class SequenceReset implements LoadStep {
    private final LoadTable table;

    SequenceReset(LoadTable table) {
        this.table = requireNonNull(table, "table is null");
    }

    /** Whether the load resets the table's sequences, as planned. */
    static boolean resets(LoadTable table) {
        LoadRequest request = table.request();
        return request.resetSequences().orElse(request.mode() == LoadMode.TRUNCATE
                || request.mode() == LoadMode.REPLACE || table.existing().isEmpty());
    }

    /** The plan's line for it, when the load resets them. */
    static void describe(LoadTable table, List<String> statements) {
        if (resets(table)) {
            statements.add("SELECT setval(...) for each identity or serial sequence of the table and each sequence a "
                    + "default draws from, past its largest value");
        }
    }

    @Override
    public void describe(List<String> statements) {
        describe(table, statements);
    }

    @Override
    public boolean begins() {
        return false; // its work is the finish's
    }

    @Override
    public void finish(LoadMarks marks, Map<String, String> done) throws ConnectorException {
        // A table this run (or an unfinished run it took over) created counts as created, whatever the plan saw.
        if (!table.request().resetSequences().orElse(resets(table) || done.containsKey(CreateTable.CREATED)
                || done.containsKey(CreatedDefinition.TABLE))) {
            return;
        }
        // One look-up, in autocommit: most tables own no sequence, and setval is outside transactions anyway.
        try (ControlConnection control = table.connections().control("setting the sequences of " + table.quoted())) {
            Connection c = control.connection();
            reset(c, table.quoted(), new TargetCatalog(c).sequencesToReset(table.quoted()));
        } catch (SQLException e) {
            throw table.connections().errors().translate(e, PostgresErrors.Phase.COPY, "setting the sequences of "
                    + table.quoted());
        }
    }

    /** Moves each of {@code sequences} of table {@code on} past the largest value its column holds; never back. */
    static void reset(Connection c, String on, List<TargetCatalog.OwnedSequence> sequences) throws SQLException {
        for (TargetCatalog.OwnedSequence sequence : sequences) {
            String column = SqlQuote.identifier(sequence.column());
            LoadTable.execute(c, "SELECT setval(" + SqlQuote.literal(sequence.sequence()) + "::regclass, m) FROM "
                    + "(SELECT max(" + column + ")::bigint AS m FROM " + on + ") x WHERE m IS NOT NULL AND m > "
                    + "COALESCE(pg_sequence_last_value(" + SqlQuote.literal(sequence.sequence()) + "::regclass), 0)");
        }
    }
}
