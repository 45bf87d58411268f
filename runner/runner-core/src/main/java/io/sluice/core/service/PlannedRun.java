package io.sluice.core.service;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.Connections;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.SnapshotSharing;
import io.sluice.core.run.RunResumer;
import io.sluice.core.run.context.Join;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.Redactor;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static java.util.Objects.requireNonNull;

/**
 * A spec planned against its servers, with the connections open: print its {@link #plan()}, or {@link #prepare} a run
 * of it. Closing it closes the connections.
 */
public final class PlannedRun implements AutoCloseable {
    private final PipelineSpec spec;
    private final Connections connections;
    private final BoundPlan plan;
    private final boolean joined;

    PlannedRun(PipelineSpec spec, Connections connections, BoundPlan plan, boolean joined) {
        this.spec = requireNonNull(spec, "spec is null");
        this.connections = requireNonNull(connections, "connections is null");
        this.plan = requireNonNull(plan, "plan is null");
        this.joined = joined;
    }

    public PipelineSpec spec() {
        return spec;
    }

    /** The plan as data: what {@code sluice plan} prints. */
    public PipelinePlan plan() {
        return plan.plan();
    }

    /** The plan with the connector objects it runs against. */
    BoundPlan bound() {
        return plan;
    }

    /** The streams that will read one snapshot of their source together ({@link io.sluice.core.plan.SnapshotSharing}). */
    public List<SnapshotSharing.Group> sharedSnapshots() {
        return SnapshotSharing.of(plan);
    }

    /** The spec's change feeds ({@code changes:}): what the ledger recorded and what the source holds now. */
    public List<RunStatus.FeedStatus> changeFeeds() {
        return new RunStatus(spec, connections).feeds(); // not closed: the connections are this plan's
    }

    /** What the connectors want a person to know, e.g. how to reach an embedded server. */
    public List<String> notices() {
        return connections.notices();
    }

    /**
     * Chooses the run's id and checks it against the ledger: a fresh run refuses an id the ledger knows (RESUME005);
     * a resumed one restores the recorded plan, done partitions skipped (see {@link RunResumer}).
     */
    public PreparedRun prepare(RunRequest request) {
        requireNonNull(request, "request is null");
        RunResumer resumer = new RunResumer(new Redactor(spec.secrets()));
        List<String> notes = new ArrayList<>();
        if (request.join().isPresent() != joined) {
            throw new IllegalStateException("a joined run needs a plan made for one (PlanOptions with joined), and "
                    + "only it");
        }
        if (request.join().isPresent()) {
            return join(request, resumer, notes);
        }
        if (request.resume().isEmpty()) {
            String id = request.runId().orElseGet(PlannedRun::generatedRunId);
            resumer.checkFresh(plan, id);
            if (!request.discardUnfinished()) {
                resumer.refuseOverUnfinishedAppends(plan);
            }
            return new PreparedRun(id, plan, notes, true);
        }
        String id = !request.resume().get().isEmpty() ? request.resume().get()
                : request.runId().orElseGet(() -> resumer.latestUnfinished(plan).orElseThrow(() ->
                new SluiceException(ErrorKind.USAGE, RunnerCode.RESUME004, "no unfinished run of spec '" + spec.name()
                        + "' in the ledger", "start a new run without --resume")));
        if (!resumer.exists(plan, id)) {
            notes.add("run " + id + " has no record in the ledger: starting it now");
            return new PreparedRun(id, plan, notes, false);
        }
        RunResumer.Resumption resumption = resumer.resume(plan, id, request.force());
        notes.addAll(resumption.notes());
        return new PreparedRun(id, resumption.plan(), notes, false);
    }

    /**
     * One process's part in a joined run: the first to come starts it, the others (and any that come back) continue
     * it like a resume, refusing a spec whose definition changed; all of them copy what they claim from the ledger.
     */
    private PreparedRun join(RunRequest request, RunResumer resumer, List<String> notes) {
        String id = request.runId().or(() -> request.resume().filter(r -> !r.isEmpty())).orElseThrow(() ->
                new SluiceException(ErrorKind.USAGE, RunnerCode.RESUME006, "--join needs the run's id, the same "
                        + "for every process", "pass --run-id, e.g. the Kubernetes Job's or the Airflow run's id"));
        Join join = request.join().orElseThrow();
        if (!resumer.exists(plan, id)) {
            notes.add("run " + id + ": starting it; other processes may join (this one is " + join.holder() + ")");
            return new PreparedRun(id, plan, notes, request.join());
        }
        RunResumer.Resumption resumption = resumer.resume(plan, id, request.force());
        notes.add("run " + id + ": joining it as " + join.holder());
        notes.addAll(resumption.notes());
        return new PreparedRun(id, resumption.plan(), notes, request.join());
    }

    /** A run id that sorts by time and rarely collides: {@code 20261124-093000-1a2b}. */
    static String generatedRunId() {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
    }

    @Override
    public void close() {
        connections.close();
    }
}
