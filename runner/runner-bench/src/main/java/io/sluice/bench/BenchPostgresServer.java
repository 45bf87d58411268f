package io.sluice.bench;

import io.sluice.testkit.TestingPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * A PostgreSQL server for one side of the benchmark: an embedded PostgreSQL 18 (zonky binaries) tuned for bulk
 * load like the published anchor runs, or a server the user named by URL (left as it is, never stopped).
 */
public final class BenchPostgresServer implements AutoCloseable {
    static final String DATABASE = "bench";

    private final String role;
    private final PgEndpoint endpoint;
    /** The embedded server (the testkit's, as every test uses); null for a server the user runs. */
    private final TestingPostgres embedded;

    private BenchPostgresServer(String role, PgEndpoint endpoint, TestingPostgres embedded) {
        this.role = requireNonNull(role, "role is null");
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
        this.embedded = embedded;
    }

    /**
     * The settings of the anchor runs: no durability (throwaway data), no WAL beyond crash recovery, no autovacuum
     * competing with the measured runs, checkpoints only when the harness asks for them between runs.
     */
    static Map<String, String> bulkLoadSettings(String sharedBuffers) {
        requireNonNull(sharedBuffers, "sharedBuffers is null");
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("fsync", "off");
        settings.put("synchronous_commit", "off");
        settings.put("full_page_writes", "off");
        settings.put("wal_level", "minimal");
        settings.put("max_wal_senders", "0"); // wal_level=minimal refuses to start otherwise
        settings.put("archive_mode", "off");
        settings.put("shared_buffers", sharedBuffers);
        settings.put("max_wal_size", "8GB");
        settings.put("checkpoint_timeout", "1h");
        settings.put("autovacuum", "off");
        settings.put("maintenance_work_mem", "512MB");
        settings.put("max_connections", "100");
        settings.put("listen_addresses", "127.0.0.1");
        return settings;
    }

    /** Starts an embedded server with its data under {@code workDirectory}, and creates the database. */
    public static BenchPostgresServer startEmbedded(String role, Path workDirectory, String sharedBuffers) {
        requireNonNull(role, "role is null");
        requireNonNull(workDirectory, "workDirectory is null");
        TestingPostgres embedded;
        try {
            embedded = TestingPostgres.startEmbedded(workDirectory.resolve("pg-" + role),
                    bulkLoadSettings(sharedBuffers));
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not start the embedded PostgreSQL for the " + role, e);
        }
        PgEndpoint admin = new PgEndpoint("127.0.0.1", embedded.port(), "postgres", "postgres", "");
        BenchPostgresServer server = new BenchPostgresServer(role, admin.withDatabase(DATABASE), embedded);
        try (Connection c = admin.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + DATABASE);
        } catch (SQLException e) {
            server.close();
            throw new IllegalStateException("could not create database " + DATABASE + " on the " + role, e);
        }
        return server;
    }

    /** A server the user runs; the harness only creates and drops its own schema in it. */
    public static BenchPostgresServer external(String role, PgEndpoint endpoint) {
        return new BenchPostgresServer(role, endpoint, null);
    }

    public PgEndpoint endpoint() {
        return endpoint;
    }

    public String role() {
        return role;
    }

    public boolean isEmbedded() {
        return embedded != null;
    }

    /** {@code server_version}, e.g. {@code 18.6}. */
    public String version() throws SQLException {
        return queryString("SHOW server_version");
    }

    public int majorVersion() throws SQLException {
        return Integer.parseInt(queryString("SELECT current_setting('server_version_num')::int / 10000"));
    }

    /** The settings that matter for bulk load, as the server reports them (for the machine description). */
    public Map<String, String> reportedSettings() throws SQLException {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection c = endpoint.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name, current_setting(name) FROM pg_settings WHERE name IN"
                     + " ('fsync','synchronous_commit','full_page_writes','wal_level','shared_buffers',"
                     + "'max_wal_size','autovacuum') ORDER BY name")) {
            while (rs.next()) {
                settings.put(rs.getString(1), rs.getString(2));
            }
        }
        return settings;
    }

    private String queryString(String sql) throws SQLException {
        try (Connection c = endpoint.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close(); // stops it and deletes its data; idempotent
        }
    }

    static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
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
        return role + " " + (isEmbedded() ? "embedded " : "external ") + endpoint;
    }
}
