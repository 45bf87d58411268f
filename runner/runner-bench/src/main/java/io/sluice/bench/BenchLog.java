package io.sluice.bench;

import java.io.PrintStream;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/** Progress lines on stderr, each with the time since the harness started. */
public final class BenchLog {
    private final PrintStream out;
    private final long startNanos = System.nanoTime();

    public BenchLog(PrintStream out) {
        this.out = requireNonNull(out, "out is null");
    }

    public void step(String message) {
        long seconds = Duration.ofNanos(System.nanoTime() - startNanos).toSeconds();
        out.printf("[bench %3d:%02d] %s%n", seconds / 60, seconds % 60, message);
    }

    /** Something the reader must not miss: a wrong row count, a failed scenario. */
    public void loud(String message) {
        out.println("!".repeat(100));
        step("!!! " + message);
        out.println("!".repeat(100));
    }
}
