package io.sluice.connector.duckdb;

import io.sluice.toolkit.driver.DriverVersion;
import org.duckdb.DuckDBDriver;

import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.util.Optional;
import java.util.jar.Manifest;

/**
 * The duckdb_jdbc on the class path, as its own jar says: no class of it carries the version (its metadata's
 * {@code getDriverVersion()} answers "1.0", and {@code pragma_version()} names the native library, 1.5.5 for several
 * JDBC releases), so it is the {@code Bundle-Version} of the jar that {@code DuckDBDriver} was loaded from.
 */
final class DuckDbJdbcVersion {
    /** The version the fast paths and the chunk check were written and tested for (the parent pom's pin). */
    static final String TESTED = "1.5.5.1";
    private static final String SWITCH_NAME = "duckdb-jdbc";
    /** {@code -Dsluice.driver-version.duckdb-jdbc=<version>}: tests simulate another driver with it. */
    static final String SIMULATED_VERSION_PROPERTY = DriverVersion.SIMULATED_VERSION_PREFIX + SWITCH_NAME;

    private DuckDbJdbcVersion() {
    }

    /** The running driver's version, or the one {@code -Dsluice.driver-version.duckdb-jdbc} simulates. */
    static DriverVersion runtime() {
        return DriverVersion.of("duckdb_jdbc", SWITCH_NAME, Reported.VERSION);
    }

    private static final class Reported {
        static final Optional<String> VERSION = read();

        private static Optional<String> read() {
            try {
                // getResource does not initialise the driver class (nor load DuckDB's native library).
                URL self = DuckDBDriver.class.getResource(DuckDBDriver.class.getSimpleName() + ".class");
                if (self == null || !(self.openConnection() instanceof JarURLConnection jar)) {
                    return Optional.empty(); // not loaded from a jar: unknown, so no fast path
                }
                Manifest manifest = jar.getManifest();
                return manifest == null ? Optional.empty()
                        : Optional.ofNullable(manifest.getMainAttributes().getValue("Bundle-Version"));
            } catch (IOException | RuntimeException | LinkageError e) {
                return Optional.empty();
            }
        }
    }
}
