package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.Redactor;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK110;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK111;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK112;
import static java.util.Objects.requireNonNull;

/**
 * One DuckDB database instance per connection in the spec. Settings, loaded extensions and the S3 secret live in
 * the instance, so every reader gets a {@link DuckDBConnection#duplicate() duplicate} of one root connection and
 * sees them ({@code :memory:} included: a duplicate shares the in-memory database).
 */
final class DuckDbDatabase implements AutoCloseable {
    private static final String SECRET_NAME = "sluice_s3";
    private static final String[] REMOTE_SCHEMES = {"s3://", "s3a://", "s3n://", "gs://", "gcs://", "r2://",
            "http://", "https://"};

    private final DuckDbSettings settings;
    private final Redactor redactor;
    private final ReentrantLock lock = new ReentrantLock();
    private DuckDBConnection root;
    private boolean httpfsReady;

    DuckDbDatabase(DuckDbSettings settings) {
        this.settings = requireNonNull(settings, "settings is null");
        this.redactor = new Redactor(settings.secretValues());
    }

    DuckDbSettings settings() {
        return settings;
    }

    Redactor redactor() {
        return redactor;
    }

    static boolean isRemote(String sql) {
        String lower = sql.toLowerCase(Locale.ROOT);
        for (String scheme : REMOTE_SCHEMES) {
            if (lower.contains(scheme)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A new connection to the instance for one reader or one planning step; the caller closes it. With
     * {@code remote}, httpfs is made ready first (loaded from extension-directory when that is set).
     */
    DuckDBConnection connect(boolean remote) throws ConnectorException {
        lock.lock();
        try {
            if (root == null) {
                root = open();
            }
            if ((remote || settings.s3().isPresent()) && !httpfsReady) {
                prepareRemote(root);
                httpfsReady = true;
            }
            return root.duplicate();
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, "DuckDB database " + settings.database(),
                    redactor);
        } finally {
            lock.unlock();
        }
    }

    private DuckDBConnection open() throws ConnectorException {
        Properties properties = new Properties();
        // relative paths in queries (read_parquet('data/x.parquet'), glob(...)) resolve against the spec's folder
        properties.setProperty("file_search_path", settings.specDirectory().toAbsolutePath().toString());
        // One thread by default: each reader drives its own query (see DuckDbOptions.THREADS); at SF 10 DuckDB's
        // default of one per core cost 16 % more client CPU in hand-offs between its threads for the same wall time.
        properties.setProperty("threads", Long.toString(settings.threads()));
        settings.memoryLimit().ifPresent(m -> properties.setProperty("memory_limit", m));
        // DuckDB caches remote file data in memory up to memory_limit; a load reads each file once, and on S3 the
        // cache was most of a run's memory (SF 10 orders: 426 MB resident with it, 122 MB without).
        properties.setProperty("enable_external_file_cache", Boolean.toString(settings.externalFileCache()));
        settings.extensionDirectory().ifPresent(dir -> {
            properties.setProperty("extension_directory", dir.toString());
            // never contact extensions.duckdb.org; known extensions still load from the directory on first use
            properties.setProperty("autoinstall_known_extensions", "false");
            properties.setProperty("autoload_known_extensions", "true");
        });
        if (!settings.inMemory()) {
            if (!Files.isRegularFile(Path.of(settings.database()))) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK110, "DuckDB database file "
                        + settings.database() + " does not exist (connection " + settings.connectionName() + ")",
                        "check the database path (relative paths resolve against the spec's folder), or use :memory:");
            }
            // a source only reads; read-only also lets other processes open the file meanwhile
            properties.setProperty(DuckDBDriver.DUCKDB_READONLY_PROPERTY, "true");
        }
        String url = "jdbc:duckdb:" + (settings.inMemory() ? "" : settings.database());
        try {
            Connection connection = new DuckDBDriver().connect(url, properties);
            return connection.unwrap(DuckDBConnection.class);
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.PREFLIGHT, "DuckDB database " + settings.database(),
                    redactor);
        }
    }

    private void prepareRemote(DuckDBConnection connection) throws ConnectorException, SQLException {
        if (settings.extensionDirectory().isPresent()) {
            load(connection, "httpfs");
            if (settings.s3().map(S3Settings::usesCredentialChain).orElse(false)) {
                load(connection, "aws"); // the credential_chain provider lives in the aws extension
            }
        }
        if (settings.s3().isPresent()) {
            createSecret(connection, settings.s3().get());
        }
    }

    /** Loads an extension from extension-directory, failing clearly when its file is not where DuckDB looks. */
    private void load(DuckDBConnection connection, String extension) throws ConnectorException, SQLException {
        Path dir = settings.extensionDirectory().orElseThrow();
        String version = single(connection, "SELECT version()");
        String platform = single(connection, "CALL pragma_platform()");
        Path expected = dir.resolve(version).resolve(platform).resolve(extension + ".duckdb_extension");
        if (!Files.isRegularFile(expected)) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK111, "DuckDB extension '" + extension
                    + "' is missing for DuckDB " + version + " (" + platform + "): expected file " + expected
                    + " (layout <extension-directory>/" + version + "/" + platform + "/" + extension
                    + ".duckdb_extension)",
                    "put the file there, e.g. unzip it from the PyPI wheel duckdb-extension-" + extension + "=="
                            + version.replaceFirst("^v", "") + " (see docs/duckdb.md), or remove extension-directory "
                            + "to let DuckDB download it");
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("LOAD " + extension);
        }
    }

    private void createSecret(DuckDBConnection connection, S3Settings s3) throws ConnectorException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(s3.createSecretSql(SECRET_NAME));
        } catch (SQLException e) {
            // The statement holds the credentials and DuckDB echoes SQL in errors: keep neither, only a scrubbed line.
            String reason = redactor.redact(e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse(""));
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK112, "could not create the DuckDB S3 secret for "
                    + "connection " + settings.connectionName() + " (" + s3 + "): " + reason,
                    "check the s3 settings; with extension-directory, httpfs (and aws for the credential chain) must "
                            + "be there");
        }
    }

    private static String single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (root != null) {
                root.close();
                root = null;
            }
        } catch (SQLException e) {
            // closing a read-only instance loses nothing; a failure here has nothing to report
        } finally {
            lock.unlock();
        }
    }
}
