package io.sluice.connector.duckdb;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Options;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A {@code type: duckdb} connection's settings, with relative paths resolved against the spec's folder. */
record DuckDbSettings(String connectionName, String database, long threads, Optional<String> memoryLimit,
                      boolean externalFileCache, Optional<Path> extensionDirectory, Optional<S3Settings> s3,
                      Path specDirectory) {
    static final String IN_MEMORY = ":memory:";

    DuckDbSettings {
        requireNonNull(connectionName, "connectionName is null");
        requireNonNull(database, "database is null");
        requireNonNull(memoryLimit, "memoryLimit is null");
        requireNonNull(extensionDirectory, "extensionDirectory is null");
        requireNonNull(s3, "s3 is null");
        requireNonNull(specDirectory, "specDirectory is null");
    }

    static DuckDbSettings from(ConnectionConfig config) {
        Options options = config.options();
        Path spec = config.specDirectory();
        String database = options.find(DuckDbOptions.DATABASE).filter(v -> !v.isBlank()).orElse(IN_MEMORY);
        if (!database.equals(IN_MEMORY)) {
            database = spec.resolve(database).toAbsolutePath().normalize().toString();
        }
        return new DuckDbSettings(config.connectionName(), database, options.get(DuckDbOptions.THREADS),
                options.find(DuckDbOptions.MEMORY_LIMIT).filter(v -> !v.isBlank()),
                options.get(DuckDbOptions.EXTERNAL_FILE_CACHE),
                options.find(DuckDbOptions.EXTENSION_DIRECTORY).filter(v -> !v.isBlank())
                        .map(v -> spec.resolve(v).toAbsolutePath().normalize())
                        .or(DuckDbSettings::installedExtensions),
                options.find(DuckDbOptions.S3).map(S3Settings::from), spec);
    }

    /** The property a distribution's launcher sets to the extensions it ships (bin/sluice, the image). */
    static final String INSTALLED_EXTENSIONS = "sluice.duckdb.extension-directory";

    /** Without extension-directory: the extensions installed with Sluice, when its launcher says where. */
    private static Optional<Path> installedExtensions() {
        String dir = System.getProperty(INSTALLED_EXTENSIONS, "");
        return dir.isBlank() ? Optional.empty() : Optional.of(Path.of(dir).toAbsolutePath().normalize());
    }

    boolean inMemory() {
        return database.equals(IN_MEMORY);
    }

    List<String> secretValues() {
        return s3.map(S3Settings::secretValues).orElse(List.of());
    }

    /** A local path from the spec, resolved against the spec's folder; URLs (s3://, https://) stay as they are. */
    String resolvePath(String path) {
        if (path.contains("://")) {
            return path;
        }
        return specDirectory.resolve(path).toAbsolutePath().normalize().toString();
    }
}
