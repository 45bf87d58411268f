package io.sluice.toolkit.driver;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A driver library's version as the driver reports it at run time, not as the build pinned it: the jar on the class
 * path is what runs. Code that reaches into the driver's non-public members is correct only for the version it was
 * tested with, so it asks this first. {@code -Dsluice.driver-version.<key>=<version>} stands in for the reported
 * version, so tests can simulate another driver.
 *
 * @param driver the driver's name for people, e.g. {@code PgJDBC}
 * @param version the version it reports; empty when it does not say
 * @param simulatedBy the system property that replaced the reported version, if one did
 */
public record DriverVersion(String driver, Optional<String> version, Optional<String> simulatedBy) {
    public static final String SIMULATED_VERSION_PREFIX = "sluice.driver-version.";

    public DriverVersion {
        requireNonNull(driver, "driver is null");
        requireNonNull(version, "version is null");
        requireNonNull(simulatedBy, "simulatedBy is null");
    }

    /** The reported version, or the one {@code -Dsluice.driver-version.<key>} simulates. */
    public static DriverVersion of(String driver, String key, Optional<String> reported) {
        requireNonNull(driver, "driver is null");
        requireNonNull(key, "key is null");
        requireNonNull(reported, "reported is null");
        String property = SIMULATED_VERSION_PREFIX + key;
        String simulated = System.getProperty(property);
        if (simulated != null) {
            return new DriverVersion(driver, Optional.of(simulated.strip()).filter(v -> !v.isEmpty()),
                    Optional.of(property));
        }
        return new DriverVersion(driver, reported.map(String::strip).filter(v -> !v.isEmpty()), Optional.empty());
    }

    /** Whether the driver is exactly {@code tested}. */
    public boolean is(String tested) {
        return version.filter(tested::equals).isPresent();
    }

    /** E.g. {@code PgJDBC 42.7.14}; says when the version is unknown or simulated. */
    public String describe() {
        String described = driver + version.map(v -> " " + v).orElse(" (it does not report its version)");
        return simulatedBy.map(p -> described + " (simulated with -D" + p + ")").orElse(described);
    }
}
