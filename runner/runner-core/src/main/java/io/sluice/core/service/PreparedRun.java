package io.sluice.core.service;

import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamLineage;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.context.Join;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.RunReport;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A run whose id is chosen and whose plan is final (restored when resumed), ready to {@link #run}. Its
 * {@link #runner()} shows progress and takes interrupts from any thread, before and during the run.
 */
public final class PreparedRun {
    private final String runId;
    private final BoundPlan plan;
    private final List<String> notes;
    private final Optional<Join> join;
    /** The ledger knew nothing of the run id (checked): no process ran it before this one. */
    private final boolean fresh;
    private final PipelineRunner runner = new PipelineRunner();

    PreparedRun(String runId, BoundPlan plan, List<String> notes, boolean fresh) {
        this(runId, plan, notes, Optional.empty(), fresh);
    }

    PreparedRun(String runId, BoundPlan plan, List<String> notes, Optional<Join> join) {
        this(runId, plan, notes, join, false);
    }

    private PreparedRun(String runId, BoundPlan plan, List<String> notes, Optional<Join> join, boolean fresh) {
        this.fresh = fresh;
        this.runId = requireNonNull(runId, "runId is null");
        this.plan = requireNonNull(plan, "plan is null");
        this.notes = List.copyOf(requireNonNull(notes, "notes is null"));
        this.join = requireNonNull(join, "join is null");
    }

    public String runId() {
        return runId;
    }

    public PipelinePlan plan() {
        return plan.plan();
    }

    /** What a person should be told before it runs, e.g. what a resume skips. */
    public List<String> notes() {
        return notes;
    }

    /** What {@code stream} reads and writes, named for lineage (OpenLineage events). */
    public StreamLineage lineage(StreamPlan stream) {
        return plan.lineage(stream);
    }

    public PipelineRunner runner() {
        return runner;
    }

    /** Moves the data; never throws for a failed copy: the report says how it ended. */
    public RunReport run(RunListener listener) {
        return runner.run(plan, runId, requireNonNull(listener, "listener is null"), join, fresh);
    }
}
