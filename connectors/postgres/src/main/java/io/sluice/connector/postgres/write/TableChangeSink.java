package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.changes.PostgresChangeApplier;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeRoute;
import io.sluice.spi.changes.ChangeSink;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * One target table's change sink ({@code PostgresTarget.changeSink()}, one object per target): a change route names
 * the table its changes go to by it, and the applier it opens takes the routes of every table in its database.
 */
final class TableChangeSink implements ChangeSink {
    private final PostgresConnections connections;
    private final PostgresLedgerStore ledger;
    private final String quotedTable;
    private final Supplier<String> describe;

    TableChangeSink(PostgresConnections connections, PostgresLedgerStore ledger, String quotedTable,
                    Supplier<String> describe) {
        this.connections = requireNonNull(connections, "connections is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.quotedTable = requireNonNull(quotedTable, "quotedTable is null");
        this.describe = requireNonNull(describe, "describe is null");
    }

    @Override
    public ChangeApplier openChangeApplier(List<ChangeRoute> routes) throws ConnectorException {
        requireNonNull(routes, "routes is null");
        List<PostgresChangeApplier.Route> own = new ArrayList<>();
        for (ChangeRoute route : routes) {
            if (!(route.target() instanceof TableChangeSink sink) || sink.connections != connections) {
                throw new IllegalArgumentException("the changes of " + route.source() + " do not go to the database "
                        + "of " + describe.get());
            }
            own.add(new PostgresChangeApplier.Route(route.source(), sink.quotedTable, route.columns(),
                    route.sourceColumns().stream().collect(Collectors.toMap(Column::name, c -> c, (a, b) -> a)),
                    route.schemaChanges()));
        }
        return new PostgresChangeApplier(connections, ledger, own);
    }
}
