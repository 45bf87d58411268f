package io.sluice.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server for tests: a Testcontainers container when a Docker daemon answers, otherwise an
 * embedded PostgreSQL 18 from the zonky binaries on Maven Central. Tests do not care which.
 */
public final class TestingPostgres implements AutoCloseable {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static TestingPostgres shared;

    private final EmbeddedPostgres embedded;
    private final PostgreSQLContainer container;
    private final String host;
    private final int port;
    private final String user;
    private final String password;

    private TestingPostgres(EmbeddedPostgres embedded, PostgreSQLContainer container) {
        this.embedded = embedded;
        this.container = container;
        if (container != null) {
            host = container.getHost();
            port = container.getMappedPort(5432);
            user = container.getUsername();
            password = container.getPassword();
        } else {
            host = "localhost";
            port = embedded.getPort();
            user = "postgres";
            password = "";
        }
    }

    /** Starts a new server; the caller closes it. */
    public static TestingPostgres start() {
        if (dockerAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:18")
                    .withCommand("postgres", "-c", "fsync=off", "-c", "synchronous_commit=off",
                            "-c", "full_page_writes=off", "-c", "max_connections=200");
            container.start();
            return new TestingPostgres(null, container);
        }
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("max_connections", "200")
                    .start();
            return new TestingPostgres(pg, null);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
        }
    }

    /** One server per test JVM, started on first use and stopped when the JVM exits. */
    public static synchronized TestingPostgres shared() {
        if (shared == null) {
            shared = start();
            TestingPostgres server = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        }
        return shared;
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Creates an empty database with a unique name (prefix plus a counter) and returns its name. */
    public String createDatabase(String prefix) {
        String name = prefix.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_") + "_"
                + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return name;
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), user, password);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** {@code embedded} or {@code container}: for messages only; tests must not branch on it. */
    public String kind() {
        return container != null ? "container" : "embedded";
    }

    @Override
    public void close() {
        try {
            if (container != null) {
                container.stop();
            } else {
                embedded.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
