package io.sluice.toolkit.driver;

import java.util.Optional;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * A faster route through a driver's non-public members. It runs only when it is not switched off
 * ({@code -Dsluice.fastpath.<name>=false}), the driver reports exactly the version it was written and tested for,
 * and all its members are found; otherwise the caller takes the driver's public API, which yields the same rows
 * more slowly. A changed driver must cost speed, never a protocol desync or wrong bytes.
 *
 * @param name the switch's name, e.g. {@code pgjdbc-copy-frames}
 * @param testedVersion the one driver version the fast route was written and tested for
 * @param fastRoute what the fast route does, for people
 * @param publicRoute what runs instead, for people
 */
public record FastPath(String name, String testedVersion, String fastRoute, String publicRoute) {
    public static final String SWITCH_PREFIX = "sluice.fastpath.";

    public FastPath {
        requireNonNull(name, "name is null");
        requireNonNull(testedVersion, "testedVersion is null");
        requireNonNull(fastRoute, "fastRoute is null");
        requireNonNull(publicRoute, "publicRoute is null");
    }

    /** The system property that turns this fast path off with {@code false}. */
    public String switchProperty() {
        return SWITCH_PREFIX + name;
    }

    /**
     * Decides for this runtime. {@code members} is called only when the switch and the version allow the fast
     * route, so a driver of another version is never reflected upon.
     */
    public <T> Selection<T> select(DriverVersion runtime, Supplier<DriverMembers<T>> members) {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(members, "members is null");
        String switched = System.getProperty(switchProperty());
        if (switched != null && !switched.strip().equalsIgnoreCase("true")) {
            return off("switched off with -D" + switchProperty() + "=" + switched.strip());
        }
        if (runtime.version().isEmpty()) {
            return off(runtime.describe() + ", so it may not be " + testedVersion
                    + ", the version this path was written and tested for");
        }
        if (!runtime.is(testedVersion)) {
            return off(runtime.describe() + " is not " + testedVersion
                    + ", the version this path was written and tested for");
        }
        DriverMembers<T> found = members.get();
        if (found.found().isEmpty()) {
            return off(runtime.describe() + " lacks a member this path reads ("
                    + found.missing().orElse("unknown") + ")");
        }
        return new Selection<>(this, true, "on " + runtime.describe(), found.found());
    }

    private <T> Selection<T> off(String reason) {
        return new Selection<>(this, false, reason, Optional.empty());
    }

    /**
     * Which route runs and why.
     *
     * @param members the driver members the fast route uses; present exactly when {@code fast}
     */
    public record Selection<T>(FastPath path, boolean fast, String reason, Optional<T> members) {
        public Selection {
            requireNonNull(path, "path is null");
            requireNonNull(reason, "reason is null");
            requireNonNull(members, "members is null");
            if (fast != members.isPresent()) {
                throw new IllegalArgumentException("the fast route needs its members, the public one none");
            }
        }

        /** One line for {@code sluice version} and plans, e.g. {@code fast path pgjdbc-copy-frames: on, ...}. */
        public String describe() {
            return "fast path " + path.name() + ": " + (fast ? "on, " + path.fastRoute() + " (" + reason + ")"
                    : "off, " + path.publicRoute() + " (" + reason + ")");
        }
    }
}
