package io.sluice.connector.postgres.session;

import io.sluice.connector.postgres.catalog.SqlQuote;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG401;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG402;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG403;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG404;
import static java.util.Objects.requireNonNull;

/**
 * A local PostgreSQL 18 from the zonky binaries on Maven Central, one per state directory per JVM, so two
 * connections that name the same directory share one server (each with its own database, created on first use).
 * Its data lives in {@code <directory>/data} and survives between runs; its port is remembered in
 * {@code <directory>/port} (54329 unless that is taken). When a server from an earlier or a concurrent run is still
 * running on that data directory, it is used as is.
 *
 * <p>The server trades durability for load speed (fsync, full_page_writes and synchronous_commit off, wal_level
 * minimal): it is a local demo and scratch server, not a place for data that cannot be recreated. It stops when the
 * JVM exits.
 */
public final class EmbeddedPostgresServer {
    static final int DEFAULT_PORT = 54329;
    public static final String USER = "postgres";
    public static final String MAJOR_VERSION = "18";

    private static final ReentrantLock REGISTRY_LOCK = new ReentrantLock();
    private static final Map<Path, EmbeddedPostgresServer> SERVERS = new HashMap<>();

    private final Path directory;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<String> knownDatabases = new HashSet<>();
    private int port;
    private boolean running;
    private EmbeddedPostgres ownServer;

    private EmbeddedPostgresServer(Path directory) {
        this.directory = requireNonNull(directory, "directory is null");
        this.port = rememberedPort().orElse(DEFAULT_PORT);
    }

    /** The server for this directory, created (not started) on first request. */
    public static EmbeddedPostgresServer forDirectory(Path directory) {
        Path key = directory.toAbsolutePath().normalize();
        REGISTRY_LOCK.lock();
        try {
            return SERVERS.computeIfAbsent(key, EmbeddedPostgresServer::new);
        } finally {
            REGISTRY_LOCK.unlock();
        }
    }

    Path dataDirectory() {
        return directory.resolve("data");
    }

    /** The port the server listens on (or will, once started). */
    public int port() {
        lock.lock();
        try {
            return port;
        } finally {
            lock.unlock();
        }
    }

    /** Starts the server if needed, creates {@code database} if missing, and returns its JDBC URL. */
    public String jdbcUrl(String database) throws ConnectorException {
        return jdbcUrl(database, java.util.Optional.empty());
    }

    /**
     * Like {@link #jdbcUrl(String)}, and when this call creates the database, runs {@code initScript} in it once
     * (e.g. the quickstart's table and rows). A failing script drops the database again, so the next run retries.
     */
    public String jdbcUrl(String database, java.util.Optional<Path> initScript) throws ConnectorException {
        requireNonNull(database, "database is null");
        requireNonNull(initScript, "initScript is null");
        lock.lock();
        try {
            ensureRunning();
            if (knownDatabases.add(database)) {
                try {
                    if (createDatabaseIfMissing(database) && initScript.isPresent()) {
                        runInitScript(database, initScript.get());
                    }
                } catch (SQLException e) {
                    knownDatabases.remove(database);
                    throw new ConnectorException(ErrorKind.PREFLIGHT, PG402,
                            "cannot create database '" + database + "' on the embedded PostgreSQL: " + e.getMessage(),
                            "check the name, or remove " + directory + " to start from scratch");
                }
            }
            return url(database);
        } finally {
            lock.unlock();
        }
    }

    /** Lines for people: where the data is and how to reach the server with psql. */
    public List<String> notices(String database) {
        return List.of(
                "embedded PostgreSQL " + MAJOR_VERSION + " keeps its data in " + dataDirectory()
                        + " (fsync off: a local demo server, not for data you cannot recreate)",
                "while Sluice runs, connect with: psql -h localhost -p " + port() + " -U " + USER + " -d "
                        + database);
    }

    /** Stops a server this JVM started, keeping its data; the next use starts it again (tests restart with it). */
    public void stop() throws IOException {
        lock.lock();
        try {
            if (ownServer != null) {
                ownServer.close();
                ownServer = null;
            }
            running = false;
            knownDatabases.clear();
        } finally {
            lock.unlock();
        }
    }

    private String url(String database) {
        return "jdbc:postgresql://localhost:" + port + "/" + database;
    }

    private void ensureRunning() throws ConnectorException {
        if (running) {
            return;
        }
        try {
            Files.createDirectories(directory);
            OptionalInt livePort = livePostmasterPort();
            if (livePort.isPresent()) {
                // A server from another run on this data directory: use it rather than fight over the lock.
                port = livePort.getAsInt();
            } else {
                if (!portIsFree(port)) {
                    port = freePort();
                }
                ownServer = EmbeddedPostgres.builder()
                        .setDataDirectory(dataDirectory())
                        .setCleanDataDirectory(false)
                        .setPort(port)
                        .setPGStartupWait(Duration.ofSeconds(120))
                        .setServerConfig("synchronous_commit", "off")
                        .setServerConfig("full_page_writes", "off")
                        .setServerConfig("wal_level", "minimal")
                        .setServerConfig("max_wal_senders", "0")
                        .setServerConfig("max_wal_size", "4GB")
                        .setServerConfig("checkpoint_timeout", "30min")
                        .setServerConfig("max_connections", "200")
                        .start();
            }
            Files.writeString(directory.resolve("port"), Integer.toString(port), StandardCharsets.UTF_8);
            running = true;
        } catch (IOException | RuntimeException e) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG401,
                    "cannot start the embedded PostgreSQL in " + directory + ": " + e.getMessage(),
                    "check that the folder is writable and not used by another PostgreSQL; when running as root, "
                            + "util-linux 'unshare' and user namespaces are needed", e);
        }
    }

    private void runInitScript(String database, Path script) throws ConnectorException {
        String sql;
        try {
            sql = Files.readString(script, StandardCharsets.UTF_8);
        } catch (IOException e) {
            dropQuietly(database);
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG403, "cannot read init-script " + script + ": "
                    + e.getMessage(), "check the path; it is relative to the spec file's folder");
        }
        try (Connection c = java.sql.DriverManager.getConnection(url(database), USER, "");
             Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            dropQuietly(database);
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG404, "init-script " + script + " failed in "
                    + "embedded database '" + database + "': " + e.getMessage(),
                    "fix the script; the database was dropped so the next run creates it again");
        }
    }

    private void dropQuietly(String database) {
        knownDatabases.remove(database);
        try (Connection c = java.sql.DriverManager.getConnection(url("postgres"), USER, "");
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + SqlQuote.identifier(database) + " WITH (FORCE)");
        } catch (SQLException ignored) {
            // Best effort: the original failure is what the user needs to see.
        }
    }

    /** Returns true when this call created the database. */
    private boolean createDatabaseIfMissing(String database) throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(url("postgres"), USER, "")) {
            try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
                p.setString(1, database);
                try (ResultSet rs = p.executeQuery()) {
                    if (rs.next()) {
                        return false;
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + SqlQuote.identifier(database));
                return true;
            } catch (SQLException e) {
                if (!"42P04".equals(e.getSQLState())) { // created meanwhile by another connection or run
                    throw e;
                }
                return false;
            }
        }
    }

    private OptionalInt rememberedPort() {
        try {
            Path file = directory.resolve("port");
            if (Files.isRegularFile(file)) {
                return OptionalInt.of(Integer.parseInt(Files.readString(file, StandardCharsets.UTF_8).trim()));
            }
        } catch (IOException | NumberFormatException ignored) {
            // a damaged file: pick the port again
        }
        return OptionalInt.empty();
    }

    /** The port of a postmaster that still runs on our data directory, per its postmaster.pid. */
    private OptionalInt livePostmasterPort() {
        Path pidFile = dataDirectory().resolve("postmaster.pid");
        try {
            if (!Files.isRegularFile(pidFile)) {
                return OptionalInt.empty();
            }
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
            if (lines.size() < 4) {
                return OptionalInt.empty();
            }
            long pid = Long.parseLong(lines.get(0).trim());
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            return alive ? OptionalInt.of(Integer.parseInt(lines.get(3).trim())) : OptionalInt.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Free for a new server: no server's Unix-socket lock for the port (a server of another state directory, in
     * this JVM or another process, may listen on the IPv6 loopback only, which a bind on 127.0.0.1 does not see; a
     * second postmaster on the port then waits out its start-up time on the lock) and both loopbacks bindable.
     */
    private static boolean portIsFree(int port) {
        if (Files.exists(Path.of("/tmp", ".s.PGSQL." + port + ".lock"))) { // the binaries' socket directory
            return false;
        }
        return canBind(InetAddress.getLoopbackAddress(), port) && canBindIpv6Loopback(port);
    }

    private static boolean canBindIpv6Loopback(int port) {
        InetAddress ipv6;
        try {
            ipv6 = InetAddress.getByName("::1");
        } catch (IOException e) {
            return true; // no IPv6 here: nothing can listen there
        }
        try (ServerSocket socket = new ServerSocket(port, 1, ipv6)) {
            return true;
        } catch (java.net.BindException e) {
            return !String.valueOf(e.getMessage()).contains("in use");
        } catch (IOException e) {
            return true; // IPv6 unavailable (e.g. disabled): nothing can listen there either
        }
    }

    private static boolean canBind(InetAddress address, int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, address)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
