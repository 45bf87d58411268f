package io.sluice.connector.postgres;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import org.postgresql.Driver;
import org.postgresql.core.BaseConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * Opens connections to one PostgreSQL database. Every connection gets standard_conforming_strings=on, which
 * {@link SqlQuote#literal} relies on. Uses the PgJDBC driver directly rather than DriverManager so another driver on
 * the class path never sees the URL.
 */
final class PostgresConnections {
    /** Where to connect; the embedded endpoint starts its server on first use. */
    @FunctionalInterface
    interface Endpoint {
        String jdbcUrl() throws ConnectorException;
    }

    private static final Driver DRIVER = new Driver();

    private final Endpoint endpoint;
    private final Properties properties;
    private final PostgresErrors errors;

    PostgresConnections(Endpoint endpoint, Properties properties, PostgresErrors errors) {
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
        this.properties = new Properties();
        this.properties.putAll(requireNonNull(properties, "properties is null"));
        this.properties.putIfAbsent("ApplicationName", "sluice");
        this.errors = requireNonNull(errors, "errors is null");
    }

    PostgresErrors errors() {
        return errors;
    }

    /** A new connection in autocommit mode; {@code purpose} names it in error messages. */
    Connection open(String purpose) throws ConnectorException {
        String url = endpoint.jdbcUrl();
        Connection connection;
        try {
            connection = DRIVER.connect(url, properties);
        } catch (SQLException e) {
            throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot connect for " + purpose);
        }
        if (connection == null) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, "PG206", "the url is not a PostgreSQL JDBC URL",
                    "write it as jdbc:postgresql://host:port/database");
        }
        try {
            if (!connection.unwrap(BaseConnection.class).getStandardConformingStrings()) {
                try (Statement s = connection.createStatement()) {
                    s.execute("SET standard_conforming_strings = on");
                }
            }
            return connection;
        } catch (SQLException e) {
            closeQuietly(connection);
            throw errors.translate(e, PostgresErrors.Phase.DESCRIBE, "cannot set up the connection for " + purpose);
        }
    }

    static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException ignored) {
            // closing is best effort; the server ends the session when the socket goes away
        }
    }
}
