package io.sluice.connector.postgres.session;

import io.sluice.toolkit.driver.DriverVersion;

import java.util.Optional;

/** The PgJDBC on the class path, as it reports itself. */
public final class PgJdbcVersion {
    /** The version the fast paths into PgJDBC's internals were written and tested for (the parent pom's pin). */
    public static final String TESTED = "42.7.14";

    private PgJdbcVersion() {
    }

    /** The running driver's version, or the one {@code -Dsluice.driver-version.pgjdbc} simulates. */
    public static DriverVersion runtime() {
        return DriverVersion.of("PgJDBC", "pgjdbc", Reported.VERSION);
    }

    private static final class Reported {
        static final Optional<String> VERSION = read();

        private static Optional<String> read() {
            try {
                // DriverInfo.DRIVER_VERSION is a compile-time constant: read directly, javac would inline the version
                // Sluice was compiled against instead of the one that runs.
                Object version = Class.forName("org.postgresql.util.DriverInfo").getField("DRIVER_VERSION").get(null);
                return version instanceof String s ? Optional.of(s) : Optional.empty();
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return Optional.empty();
            }
        }
    }
}
