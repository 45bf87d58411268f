package io.sluice.core.spec;

/**
 * How a spec's streams run together.
 *
 * @param maxParallelStreams how many streams copy at once (each with its own {@code degree}); 1 runs them one after
 *                           another, in spec order; more starts the largest (by estimated size) first
 * @param failFast           whether a failed stream stops the others (running ones cancelled, waiting ones
 *                           skipped); without it the others go on and the run's exit code is the worst stream's
 * @param before             top-level {@code before:}: SQL run once per run before the first stream starts
 * @param after              top-level {@code after:}: SQL run once per run when every stream is finished (after their own after hooks)
 */
public record RunSettings(int maxParallelStreams, boolean failFast, java.util.List<RunHook> before,
                          java.util.List<RunHook> after) {
    public static final RunSettings DEFAULT = new RunSettings(1, false);

    public RunSettings {
        if (maxParallelStreams < 1) {
            throw new IllegalArgumentException("maxParallelStreams must be at least 1: " + maxParallelStreams);
        }
        before = java.util.List.copyOf(java.util.Objects.requireNonNull(before, "before is null"));
        after = java.util.List.copyOf(java.util.Objects.requireNonNull(after, "after is null"));
    }

    /** Settings without run hooks. */
    public RunSettings(int maxParallelStreams, boolean failFast) {
        this(maxParallelStreams, failFast, java.util.List.of(), java.util.List.of());
    }

    public boolean hasHooks() {
        return !before.isEmpty() || !after.isEmpty();
    }
}
