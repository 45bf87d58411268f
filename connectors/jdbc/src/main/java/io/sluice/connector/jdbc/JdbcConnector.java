package io.sluice.connector.jdbc;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Sources;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Source;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A {@code type: jdbc} connection: tables and queries of a database whose driver is in the plugins folder. */
final class JdbcConnector implements Connector {
    private final JdbcDatabase database;

    JdbcConnector(JdbcDatabase database) {
        this.database = requireNonNull(database, "database is null");
    }

    @Override
    public java.util.Optional<Sources> sources() {
        return java.util.Optional.of(this::source);
    }

    /** The source side of a stream, from its validated {@code source:} options. */
    public Source source(Options sourceOptions) throws ConnectorException {
        Optional<String> table = sourceOptions.find(JdbcOptions.TABLE);
        Optional<String> query = sourceOptions.find(JdbcOptions.QUERY);
        if (table.isPresent() == query.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, JdbcCode.JDBC001, "a jdbc source needs exactly one "
                    + "of table and query", "set table: or query:");
        }
        return new JdbcSource(database, table, query);
    }

    @Override
    public void close() {
    }
}
