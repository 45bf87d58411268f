package io.sluice.spi.write;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LoadMarks;

import java.util.List;

/** A target's ability to run a stream's or a run's hooks ({@link PlannedLoad#hooks()}). */
@FunctionalInterface
public interface TargetHooks {
    /**
     * Runs a hook ({@code before:} or {@code after:} in the spec, {@code phase} says which) on the target:
     * {@code statements} in order, in one transaction that also writes the mark {@code hook-<phase>}, unless the
     * marks say a process of the run did already, so a hook runs once per run whatever crashes and resumes come
     * between. Returns whether it ran now.
     */
    boolean runHook(String phase, List<String> statements, LoadMarks marks) throws ConnectorException;
}
