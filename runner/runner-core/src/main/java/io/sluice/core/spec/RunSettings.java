package io.sluice.core.spec;

/**
 * How a spec's streams run together.
 *
 * @param maxParallelStreams how many streams copy at once (each with its own {@code degree}); 1 runs them one after
 *                           another, in spec order; more starts the largest (by estimated size) first
 * @param failFast           whether a failed stream stops the others (running ones cancelled, waiting ones
 *                           skipped); without it the others go on and the run's exit code is the worst stream's
 */
public record RunSettings(int maxParallelStreams, boolean failFast) {
    public static final RunSettings DEFAULT = new RunSettings(1, false);

    public RunSettings {
        if (maxParallelStreams < 1) {
            throw new IllegalArgumentException("maxParallelStreams must be at least 1: " + maxParallelStreams);
        }
    }
}
