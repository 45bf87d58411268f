package io.sluice.core.service;

import io.sluice.core.run.context.Join;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Which run to start or continue.
 *
 * @param runId  the id to give a new run (generated when empty), or the run to resume
 * @param resume continue an earlier run: empty for a fresh run; present with an empty id for the newest unfinished run
 *               of the spec (or {@code runId}'s); with an id the ledger does not know it starts fresh under that id, so
 *               a retried task can always pass its own id
 * @param force  resume even though a stream's definition changed since the run started
 * @param join   this process's part when several processes share the run ({@code --join}): it then starts the run
 *               when the ledger does not know it, and continues it when it does
 * @param discardUnfinished a fresh run starts even though an unfinished run of the spec appended rows it would load
 *               again (the person removed them, or wants them twice)
 */
public record RunRequest(Optional<String> runId, Optional<String> resume, boolean force, Optional<Join> join,
                         boolean discardUnfinished) {
    public RunRequest {
        requireNonNull(runId, "runId is null");
        requireNonNull(resume, "resume is null");
        requireNonNull(join, "join is null");
        if (runId.isPresent() && resume.isPresent() && !resume.get().isEmpty() && !runId.get().equals(resume.get())) {
            throw new IllegalArgumentException("--run-id " + runId.get() + " and --resume " + resume.get()
                    + " name different runs");
        }
    }

    public RunRequest(Optional<String> runId, Optional<String> resume, boolean force, Optional<Join> join) {
        this(runId, resume, force, join, false);
    }

    /** What a run id may be: it goes into the ledger, file names, URLs and terminals. */
    public static final java.util.regex.Pattern RUN_ID =
            java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:+-]{0,127}");

    /** The rule {@link #RUN_ID} keeps, for people. */
    public static final String RUN_ID_RULE = "1 to 128 letters, digits and . _ : + - starting with a letter or digit";

    /** A run of one process. */
    public RunRequest(Optional<String> runId, Optional<String> resume, boolean force) {
        this(runId, resume, force, Optional.empty());
    }

    /** A new run under {@code runId}; a run id the ledger knows already is refused. */
    public static RunRequest fresh(String runId) {
        return new RunRequest(Optional.of(runId), Optional.empty(), false);
    }
}
