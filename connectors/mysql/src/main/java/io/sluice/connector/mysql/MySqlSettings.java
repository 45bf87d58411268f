package io.sluice.connector.mysql;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.Redactor;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * How to reach a MySQL or MariaDB server: the JDBC URL (MariaDB Connector/J, which speaks to both), its properties
 * (user, password and TLS apart from the URL, so no secret is ever part of a string Sluice prints), and the redactor
 * for the password.
 */
final class MySqlSettings {
    private final String url;
    private final Properties properties;
    private final Redactor redactor;
    private final String connectionName;

    private MySqlSettings(String connectionName, String url, Properties properties, Redactor redactor) {
        this.connectionName = connectionName;
        this.url = url;
        this.properties = properties;
        this.redactor = redactor;
    }

    static MySqlSettings from(ConnectionConfig config) {
        requireNonNull(config, "config is null");
        Options options = config.options();
        String url = options.find(MySqlOptions.URL).map(u -> u.replaceFirst("^jdbc:mysql:", "jdbc:mariadb:"))
                .orElseGet(() -> "jdbc:mariadb://" + options.find(MySqlOptions.HOST).orElse("localhost") + ":"
                        + options.get(MySqlOptions.PORT) + "/" + options.find(MySqlOptions.DATABASE).orElse(""));
        Properties properties = new Properties();
        options.find(MySqlOptions.PROPERTIES).ifPresent(properties::putAll);
        options.find(MySqlOptions.USER).ifPresent(u -> properties.setProperty("user", u));
        options.find(MySqlOptions.PASSWORD).ifPresent(p -> properties.setProperty("password", p));
        properties.setProperty("sslMode", options.get(MySqlOptions.SSL_MODE));
        // The text protocol streams rows as the reader asks for them (fetch size) and needs no statement cache.
        properties.putIfAbsent("useServerPrepStmts", "false");
        properties.putIfAbsent("connectTimeout", "10000");
        Redactor redactor = new Redactor(options.find(MySqlOptions.PASSWORD).map(List::of).orElse(List.of()));
        return new MySqlSettings(config.connectionName(), url, properties, redactor);
    }

    /** The URL without credentials, for people. */
    String describe() {
        return redactor.redact(url.replaceAll("//[^/@]*@", "//"));
    }

    Redactor redactor() {
        return redactor;
    }

    /** A connection whose session reads values as Sluice decodes them: UTC for TIMESTAMP, utf8mb4, plain SQL. */
    Connection connect() throws ConnectorException {
        try {
            Connection c = DriverManager.getConnection(url, properties);
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION time_zone = '+00:00', SESSION sql_mode = '', NAMES utf8mb4");
            }
            return c;
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot connect to " + connectionName + " (" + describe() + ")",
                    redactor);
        }
    }
}
