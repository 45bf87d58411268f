package io.sluice.connector.mysql;

import io.sluice.spi.Connector;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.Options;
import io.sluice.spi.Source;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A {@code type: mysql} connection: a source of tables and queries of a MySQL or MariaDB server. */
final class MySqlConnector implements Connector {
    private final MySqlSettings settings;
    private final Optional<String> database;

    MySqlConnector(MySqlSettings settings, Optional<String> database) {
        this.settings = requireNonNull(settings, "settings is null");
        this.database = requireNonNull(database, "database is null");
    }

    @Override
    public Source source(Options sourceOptions) throws ConnectorException {
        requireNonNull(sourceOptions, "sourceOptions is null");
        Optional<String> table = sourceOptions.find(MySqlOptions.TABLE);
        Optional<String> query = sourceOptions.find(MySqlOptions.QUERY);
        if (table.isPresent() == query.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY001, "a mysql source needs exactly one "
                    + "of table and query", "set table: to a table (or database.table), or query: to a SELECT");
        }
        return new MySqlSource(settings, database, table, query);
    }

    @Override
    public void close() {
    }
}
