package io.sluice.app;

/**
 * Which threads wait for socket readiness on behalf of blocked virtual threads. Since JDK 22 the default on Linux
 * runs the pollers as virtual threads under one platform "MasterPoller", so every wake-up of a partition worker
 * blocked on a socket schedules two virtual threads instead of one. For a copy, where workers block on their source
 * and target sockets thousands of times, the JDK 21 arrangement (platform poller threads, {@code jdk.pollerMode=1})
 * took 0.86x the CPU and 0.95x the wall time (lineitem, degree 1, 4 alternating pairs; docs/operations.md).
 * An explicit {@code -Djdk.pollerMode} wins. It must be set before the first blocking socket call of a virtual
 * thread, when the JDK reads it.
 */
final class SocketPollers {
    static final String PROPERTY = "jdk.pollerMode";
    static final String PLATFORM_THREADS = "1";

    private SocketPollers() {
    }

    static void preferPlatformThreads() {
        if (System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, PLATFORM_THREADS);
        }
    }
}
