package io.sluice.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * A real MariaDB server on 127.0.0.1, started from the distribution's binaries ({@code apt-get install mariadb-server}:
 * no MariaDB distribution resolves from Maven Central), in a data directory of its own, on a free port, with a user
 * that may do everything. Where the binaries are missing, {@link #start()} aborts the test (JUnit's assumption),
 * saying so, unless {@code SLUICE_REQUIRE_MARIADB} is set ({@code .ci/run} sets it after installing them): then it
 * fails.
 */
public final class TestingMariaDb implements AutoCloseable {
    public static final String USER = "sluice";
    public static final String PASSWORD = "sluice-test-pw";
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final Path directory;
    private final int port;
    private Process server;

    private TestingMariaDb(Path directory, int port, Process server) {
        this.directory = requireNonNull(directory, "directory is null");
        this.port = port;
        this.server = requireNonNull(server, "server is null");
    }

    /** Where the server's binaries are: {@code SLUICE_MARIADB_BIN}, else {@code /usr/sbin} and {@code /usr/bin}. */
    static Optional<Path[]> binaries() {
        String dir = System.getenv("SLUICE_MARIADB_BIN");
        Path server = dir == null ? Path.of("/usr/sbin/mariadbd") : Path.of(dir, "mariadbd");
        Path install = dir == null ? Path.of("/usr/bin/mariadb-install-db") : Path.of(dir, "mariadb-install-db");
        return Files.isExecutable(server) && Files.isExecutable(install) ? Optional.of(new Path[] {server, install})
                : Optional.empty();
    }

    /** Starts a server; the caller closes it. Aborts the test (or fails, see the class) without the binaries. */
    public static TestingMariaDb start() {
        Optional<Path[]> found = binaries();
        if (found.isEmpty()) {
            String why = "MariaDB's server is not installed here (apt-get install mariadb-server; .ci/run installs it)";
            if (System.getenv("SLUICE_REQUIRE_MARIADB") != null) {
                throw new IllegalStateException(why + ", and SLUICE_REQUIRE_MARIADB is set");
            }
            org.junit.jupiter.api.Assumptions.abort(why);
        }
        Path[] bin = found.get();
        try {
            Path directory = Files.createTempDirectory("sluice-mariadb-");
            Path data = directory.resolve("data");
            List<String> install = new ArrayList<>(List.of(bin[1].toString(), "--no-defaults",
                    "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"));
            root().ifPresent(user -> install.add("--user=" + user));
            run(install, directory.resolve("install.log"));
            int port = freePort();
            List<String> command = new ArrayList<>(List.of(bin[0].toString(), "--no-defaults", "--datadir=" + data,
                    "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + directory.resolve("sock"),
                    "--pid-file=" + directory.resolve("pid"), "--log-error=" + directory.resolve("error.log"),
                    "--skip-log-bin", "--innodb-buffer-pool-size=256M", "--innodb-log-file-size=256M",
                    "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
                    "--max-connections=200", "--skip-name-resolve"));
            root().ifPresent(user -> command.add("--user=" + user));
            Process server = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(directory.resolve("server.log").toFile()).start();
            TestingMariaDb started = new TestingMariaDb(directory, port, server);
            started.awaitReady(bin[0].getParent().getParent().resolve("bin/mariadb"));
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start MariaDB", e);
        }
    }

    /** mariadbd refuses to run as root unless told to; the tests run as whoever runs them. */
    private static Optional<String> root() {
        return "root".equals(System.getProperty("user.name")) ? Optional.of("root") : Optional.empty();
    }

    private void awaitReady(Path client) throws IOException {
        long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
        String create = "CREATE USER '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "'; GRANT ALL ON *.* TO '"
                + USER + "'@'%' WITH GRANT OPTION;";
        while (true) {
            if (!server.isAlive()) {
                throw new IllegalStateException("MariaDB ended while starting: " + log());
            }
            Process p = new ProcessBuilder(client.toString(), "--no-defaults", "-S", directory.resolve("sock")
                    .toString(), "-uroot", "-e", create).redirectErrorStream(true).start();
            try {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (p.waitFor() == 0) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("MariaDB did not accept connections within " + STARTUP_WAIT
                            + ": " + out + " " + log());
                }
                Thread.sleep(50); // the server is starting: its socket is not there yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while MariaDB started", e);
            }
        }
    }

    private String log() {
        try {
            Path log = directory.resolve("error.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void run(List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Creates an empty database (utf8mb4) and returns its name. */
    public String createDatabase(String prefix) {
        String name = prefix + "_" + DATABASES.incrementAndGet();
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return name;
    }

    public String jdbcUrl(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database) + "?allowMultiQueries=true", USER, PASSWORD);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String user() {
        return USER;
    }

    public String password() {
        return PASSWORD;
    }

    /** Kills the server at once (SIGKILL), as a crash would. */
    public synchronized void crash() {
        server.destroyForcibly();
        try {
            server.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void close() {
        server.destroy();
        try {
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: the system cleans it up
        }
    }

    @Override
    public String toString() {
        return "MariaDB on 127.0.0.1:" + port;
    }
}
