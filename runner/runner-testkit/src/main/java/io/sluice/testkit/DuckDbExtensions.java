package io.sluice.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * The DuckDB extensions (httpfs, tpch, postgres_scanner) that tests load offline, laid out as DuckDB's
 * {@code extension_directory} expects: {@code <dir>/v1.5.5/linux_amd64/<name>.duckdb_extension}.
 *
 * <p>The directory is, first found: system property {@value #PROPERTY}, environment variable {@value #ENV}, else
 * {@code .ci/cache/duckdb-extensions} in the repository, found by walking up from the working directory. Tests that
 * need an extension call {@link #require(String)}: when the file is missing they fail with a message saying how to
 * provision it. They are never skipped.
 */
public final class DuckDbExtensions {
    public static final String PROPERTY = "sluice.duckdb.extensions";
    public static final String ENV = "SLUICE_DUCKDB_EXTENSIONS";
    /** The extension files can be had offline for this version only; duckdb_jdbc must match it. */
    public static final String DUCKDB_VERSION = "v1.5.5";
    public static final String PROVISION_COMMAND = "bash .ci/provision-duckdb-extensions.sh";
    private static final String REPO_RELATIVE = ".ci/cache/duckdb-extensions";

    private DuckDbExtensions() {
    }

    /** The extension directory to give DuckDB as {@code extension_directory} (it may not exist yet). */
    public static Path directory() {
        String configured = System.getProperty(PROPERTY);
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(ENV);
        }
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            // The provisioning script marks the repository root even before anything was provisioned.
            if (Files.isRegularFile(dir.resolve(".ci/provision-duckdb-extensions.sh"))
                    || Files.isDirectory(dir.resolve(REPO_RELATIVE))) {
                return dir.resolve(REPO_RELATIVE);
            }
        }
        return start.resolve(REPO_RELATIVE);
    }

    /** DuckDB's platform folder name for this machine, e.g. {@code linux_amd64}. */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String duckArch = arch.equals("aarch64") || arch.equals("arm64") ? "arm64" : "amd64";
        String duckOs = os.contains("mac") ? "osx" : os.contains("win") ? "windows" : "linux";
        return duckOs + "_" + duckArch;
    }

    /** Where the file of extension {@code name} must be. */
    public static Path file(String name) {
        requireNonNull(name, "name is null");
        return directory().resolve(DUCKDB_VERSION).resolve(platform()).resolve(name + ".duckdb_extension");
    }

    /**
     * Returns the extension's file, or throws IllegalStateException telling how to provision it. Call it first in a
     * test that needs the extension, so the failure names the cause instead of a DuckDB autoload error.
     */
    public static Path require(String name) {
        Path file = file(name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(missingMessage(name, file));
        }
        return file;
    }

    static String missingMessage(String name, Path file) {
        return "DuckDB extension '" + name + "' is not provisioned: " + file + " does not exist. Run `"
                + PROVISION_COMMAND + "` at the repository root (it fetches the PyPI wheels duckdb-extension-*=="
                + DUCKDB_VERSION.substring(1) + "), or point -D" + PROPERTY + " or " + ENV
                + " at a directory laid out as <dir>/" + DUCKDB_VERSION + "/" + platform()
                + "/<name>.duckdb_extension.";
    }

    /**
     * Connection properties for {@code DriverManager.getConnection("jdbc:duckdb:", props)} that load extensions from
     * {@link #directory()} only: autoinstall off (never reach extensions.duckdb.org), autoload on (the first
     * {@code s3://} use loads httpfs from the directory).
     */
    public static Properties connectionProperties() {
        Properties properties = new Properties();
        properties.setProperty("extension_directory", directory().toString());
        properties.setProperty("autoinstall_known_extensions", "false");
        properties.setProperty("autoload_known_extensions", "true");
        return properties;
    }
}
