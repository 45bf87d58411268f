package io.sluice.connector.jdbc;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.Redactor;
import io.sluice.toolkit.plugin.Plugins;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;

import static java.util.Objects.requireNonNull;

/**
 * A database behind a JDBC driver the user supplies in the plugins folder: the driver is found by class name or as
 * the one that accepts the URL, among those the plugins' jars (and Sluice's own) declare, and connections are made
 * through it directly (DriverManager cannot see a plugin's classes).
 */
final class JdbcDatabase {
    private final String name;
    private final String url;
    private final Optional<String> driverClass;
    private final Properties properties;
    private final Redactor redactor;
    private final int fetchSize;
    private volatile Driver driver;

    JdbcDatabase(ConnectionConfig config) {
        requireNonNull(config, "config is null");
        Options options = config.options();
        this.name = config.connectionName();
        this.url = options.get(JdbcOptions.URL);
        this.driverClass = options.find(JdbcOptions.DRIVER);
        this.properties = new Properties();
        options.find(JdbcOptions.PROPERTIES).ifPresent(properties::putAll);
        options.find(JdbcOptions.USER).ifPresent(u -> properties.setProperty("user", u));
        options.find(JdbcOptions.PASSWORD).ifPresent(p -> properties.setProperty("password", p));
        this.redactor = new Redactor(options.find(JdbcOptions.PASSWORD).map(List::of).orElse(List.of()));
        this.fetchSize = (int) Math.min(Integer.MAX_VALUE, Math.max(1, options.get(JdbcOptions.FETCH_SIZE)));
    }

    Redactor redactor() {
        return redactor;
    }

    int fetchSize() {
        return fetchSize;
    }

    String describe() {
        return redactor.redact(url);
    }

    private Driver driver() throws ConnectorException {
        Driver known = driver;
        if (known != null) {
            return known;
        }
        ClassLoader loader = Plugins.classLoader();
        try {
            if (driverClass.isPresent()) {
                known = (Driver) Class.forName(driverClass.get(), true, loader).getDeclaredConstructor().newInstance();
            } else {
                for (Driver candidate : ServiceLoader.load(Driver.class, loader)) {
                    if (candidate.acceptsURL(url)) {
                        known = candidate;
                        break;
                    }
                }
            }
        } catch (ReflectiveOperationException | ClassCastException | SQLException | java.util.ServiceConfigurationError e) {
            throw noDriver("cannot load " + driverClass.orElse("a driver") + ": " + e, e);
        }
        if (known == null) {
            throw noDriver("no JDBC driver accepts " + describe(), null);
        }
        driver = known;
        return known;
    }

    private ConnectorException noDriver(String what, Throwable cause) {
        String folder = Plugins.folder().map(Object::toString).orElse("(none set: SLUICE_PLUGINS)");
        return new ConnectorException(ErrorKind.PREFLIGHT, JdbcCode.JDBC101, "connection " + name + ": " + what
                + " (plugins folder " + folder + ", jars " + Plugins.jars().stream().map(p -> p.getFileName()
                .toString()).toList() + ")", "put the database's JDBC driver jar in the plugins folder (plugins/ "
                + "beside the sluice launcher, or the folder SLUICE_PLUGINS names), or set driver: to its class",
                cause);
    }

    Connection connect() throws ConnectorException {
        Driver d = driver();
        try {
            Connection c = d.connect(url, properties);
            if (c == null) {
                throw noDriver(d.getClass().getName() + " does not accept " + describe(), null);
            }
            return c;
        } catch (SQLException e) {
            throw failure(e, "cannot connect to " + name + " (" + describe() + ")");
        }
    }

    ConnectorException failure(SQLException e, String context) {
        boolean broken = e.getSQLState() != null && e.getSQLState().startsWith("08");
        return new ConnectorException(broken ? ErrorKind.TRANSIENT : ErrorKind.FAILED, JdbcCode.JDBC102, context
                + ": " + redactor.redact(String.valueOf(e.getMessage())) + (e.getSQLState() == null ? ""
                : " [SQLSTATE " + e.getSQLState() + "]"), "see the database's message", e);
    }
}
