package io.sluice.toolkit.driver;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of looking up a driver's non-public members once: all of them, or what was missing or changed. A
 * lookup never throws, so a driver without the members can never fail a class's initialisation.
 */
public final class DriverMembers<T> {
    private final Optional<T> found;
    private final Optional<String> missing;

    private DriverMembers(Optional<T> found, Optional<String> missing) {
        this.found = requireNonNull(found, "found is null");
        this.missing = requireNonNull(missing, "missing is null");
    }

    /** Runs {@code lookup}; whatever it throws (reflection, a changed type, a class not found) becomes missing. */
    public static <T> DriverMembers<T> find(Lookup<T> lookup) {
        requireNonNull(lookup, "lookup is null");
        try {
            return new DriverMembers<>(Optional.of(requireNonNull(lookup.find(), "lookup returned null")),
                    Optional.empty());
        } catch (Exception | LinkageError e) {
            return new DriverMembers<>(Optional.empty(), Optional.of(e.getClass().getSimpleName() + ": "
                    + e.getMessage()));
        }
    }

    public Optional<T> found() {
        return found;
    }

    /** What the lookup did not find, e.g. {@code NoSuchFieldException: pgStream}. */
    public Optional<String> missing() {
        return missing;
    }

    @FunctionalInterface
    public interface Lookup<T> {
        T find() throws Exception;
    }
}
