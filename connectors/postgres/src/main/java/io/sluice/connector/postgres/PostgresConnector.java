package io.sluice.connector.postgres;

import io.sluice.spi.Connector;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.Options;
import io.sluice.spi.Source;
import io.sluice.spi.Target;

import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.PostgresCode.PG101;
import static io.sluice.connector.postgres.PostgresCode.PG102;
import static io.sluice.connector.postgres.PostgresCode.PG104;
import static java.util.Objects.requireNonNull;

/** One {@code type: postgres} connection. Connects lazily; holds only the control connection between calls. */
final class PostgresConnector implements Connector {
    private final PostgresConnections connections;
    private final List<String> notices;
    private final String ledgerSchema;

    PostgresConnector(PostgresConnections connections, List<String> notices, String ledgerSchema) {
        this.connections = requireNonNull(connections, "connections is null");
        this.notices = List.copyOf(requireNonNull(notices, "notices is null"));
        this.ledgerSchema = requireNonNull(ledgerSchema, "ledgerSchema is null");
    }

    @Override
    public Source source(Options sourceOptions) throws ConnectorException {
        Optional<String> table = sourceOptions.find(PostgresOptions.TABLE);
        Optional<String> query = sourceOptions.find(PostgresOptions.QUERY);
        if (table.isPresent() == query.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG102,
                    "a postgres source needs exactly one of table or query", "keep either table: or query:");
        }
        if (table.isPresent()) {
            return PostgresSource.ofTable(connections, parse(table.get()));
        }
        return PostgresSource.ofQuery(connections, query.get());
    }

    @Override
    public Target target(Options targetOptions) throws ConnectorException {
        String table = targetOptions.find(PostgresOptions.TABLE).orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, PG104, "a postgres target needs a table",
                "add table: schema.table"));
        return new PostgresTarget(connections, parse(table), ledgerSchema,
                targetOptions.find(PostgresOptions.CREATE).map("if-missing"::equals).orElse(false),
                targetOptions.find(PostgresOptions.PRIMARY_KEY).orElse(List.of()));
    }

    private static QualifiedName parse(String table) throws ConnectorException {
        try {
            return QualifiedName.parse(table);
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG101, e.getMessage(),
                    PostgresLint.TABLE_NAME_FIX);
        }
    }

    /** {@code max_connections} minus the superuser reservation minus the client backends connected now. */
    @Override
    public java.util.OptionalInt freeConnections() throws ConnectorException {
        try (ControlConnection control = connections.control("counting the server's free connections");
             java.sql.Statement s = control.connection().createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('max_connections')::int - "
                     + "current_setting('superuser_reserved_connections')::int - (SELECT count(*) FROM "
                     + "pg_stat_activity WHERE backend_type = 'client backend')")) {
            rs.next();
            return java.util.OptionalInt.of(rs.getInt(1));
        } catch (java.sql.SQLException e) {
            return java.util.OptionalInt.empty(); // only a check ahead of time: the run still fails clearly later
        }
    }

    @Override
    public List<String> notices() {
        return notices;
    }

    @Override
    public void close() {
        // Every reader and writer closes its own connections. An embedded server may serve other connections of
        // the spec and stops when the JVM exits.
        connections.close();
    }
}
