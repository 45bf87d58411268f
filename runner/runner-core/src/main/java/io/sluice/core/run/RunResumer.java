package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.ledger.StreamDefinition;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.spec.IncrementalSpec;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.read.SourcePartition;
import io.sluice.toolkit.Redactor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Turns a fresh plan into the plan of a run that continues an earlier one: per stream, the partitions recorded in
 * the ledger are restored exactly (not planned again: a table that grew would split differently), the done ones
 * are skipped, and a stream whose definition changed is refused unless forced. Also guards fresh runs against a
 * run id that already exists.
 */
public final class RunResumer {
    /** The plan to run and what a person should be told about it. */
    public record Resumption(BoundPlan plan, List<String> notes) {
        public Resumption {
            requireNonNull(plan, "plan is null");
            notes = List.copyOf(requireNonNull(notes, "notes is null"));
        }
    }

    private final Redactor redactor;

    public RunResumer(Redactor redactor) {
        this.redactor = requireNonNull(redactor, "redactor is null");
    }

    /** Refuses a fresh run whose id the ledger already knows: running it again could copy rows twice. */
    public void checkFresh(BoundPlan plan, String runId) {
        Reads reads = new Reads(plan);
        for (StreamPlan stream : plan.plan().streams()) {
            if (!stream.recorded()) {
                continue;
            }
            Optional<LedgerStream> recorded = reads.streamOfRun(stream, runId);
            if (recorded.isPresent()) {
                throw new SluiceException(ErrorKind.USAGE, RunnerCode.RESUME005, "run id '" + runId + "' already exists in "
                        + "the ledger (stream '" + stream.name() + "' is " + state(recorded.get()) + ")",
                        "continue it with --resume " + runId + ", or choose another --run-id");
            }
        }
    }

    /**
     * Refuses a fresh run over an unfinished one that appended: when the newest run of an append stream (plain or
     * incremental) did not finish and committed partitions, loading again would add those rows a second time (an
     * incremental run reads the dead run's window again). {@code --resume} finishes it exactly once.
     */
    public void refuseOverUnfinishedAppends(BoundPlan plan) {
        List<String> found = new ArrayList<>();
        String unfinishedRun = null;
        Reads reads = new Reads(plan);
        for (StreamPlan stream : plan.plan().streams()) {
            if (!stream.recorded() || !stream.spec().load().appends()) {
                continue;
            }
            Optional<LedgerStream> newest = reads.streamsOfSpec(stream).stream()
                    .filter(s -> s.stream().equals(stream.name())).findFirst();
            if (newest.isEmpty() || newest.get().state() == LedgerStream.State.DONE) {
                continue;
            }
            List<LedgerPartition> done = call(plan, stream, l -> l.partitions(newest.get().key())).stream()
                    .filter(p -> p.state() == LedgerPartition.State.DONE).toList();
            long rows = done.stream().mapToLong(LedgerPartition::rows).sum();
            if (rows > 0) {
                found.add("stream '" + stream.name() + "': run " + newest.get().runId() + " is " + state(newest.get())
                        + " with " + done.size() + " partition(s), " + rows + " row(s) appended");
                unfinishedRun = unfinishedRun == null ? newest.get().runId() : unfinishedRun;
            }
        }
        if (!found.isEmpty()) {
            throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.RESUME008, "an unfinished run of spec '"
                    + plan.plan().spec().name() + "' appended rows that a fresh run would load a second time: "
                    + String.join("; ", found) + "; nothing was written", "finish it exactly once with sluice run "
                    + "SPEC --resume " + unfinishedRun + "; or, after deleting what it appended, start afresh with "
                    + "--discard-unfinished");
        }
    }

    /** The id of the newest run of this spec that has a stream not done, if any. */
    public Optional<String> latestUnfinished(BoundPlan plan) {
        LedgerStream newest = null;
        Reads reads = new Reads(plan);
        java.util.Set<String> groups = new java.util.HashSet<>();
        for (StreamPlan stream : plan.plan().streams()) {
            if (!groups.add(reads.group(stream))) {
                continue; // every stream of the group has the same runs
            }
            for (LedgerStream run : reads.streamsOfSpec(stream)) {
                if (run.state() != LedgerStream.State.DONE
                        && (newest == null || run.startedAt().isAfter(newest.startedAt()))) {
                    newest = run;
                }
            }
        }
        return Optional.ofNullable(newest).map(LedgerStream::runId);
    }

    /** True when some stream of the spec's targets knows this run id. */
    public boolean exists(BoundPlan plan, String runId) {
        Reads reads = new Reads(plan);
        for (StreamPlan stream : plan.plan().streams()) {
            if (!reads.streamsOfRun(stream, runId).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    public Resumption resume(BoundPlan fresh, String runId, boolean force) {
        List<StreamPlan> streams = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Reads reads = new Reads(fresh);
        for (StreamPlan stream : fresh.plan().streams()) {
            Optional<LedgerStream> recorded = reads.streamOfRun(stream, runId);
            if (recorded.isEmpty()) {
                notes.add("stream " + stream.name() + ": not started in run " + runId + " before; copies in full");
                streams.add(stream);
                continue;
            }
            if (recorded.get().state() == LedgerStream.State.DONE) {
                notes.add("stream " + stream.name() + ": done in run " + runId + " already; skipped");
                continue;
            }
            checkDefinition(stream, recorded.get(), runId, force, notes);
            List<LedgerPartition> stored = call(fresh, stream, l -> l.partitions(new StreamKey(runId, stream.name())));
            if (stored.isEmpty()) {
                notes.add("stream " + stream.name() + ": run " + runId + " stopped before planning it; copies in "
                        + "full");
                streams.add(stream);
                continue;
            }
            streams.add(restore(stream, fresh.binding(stream), stored, runId, notes));
        }
        return new Resumption(fresh.with(new PipelinePlan(fresh.plan().spec(), streams)), notes);
    }

    private void checkDefinition(StreamPlan stream, LedgerStream recorded, String runId, boolean force,
                                 List<String> notes) {
        String current = StreamDefinition.of(stream.spec(), redactor);
        List<String> difference = StreamDefinition.difference(recorded.definition(), current);
        if (difference.isEmpty()) {
            return;
        }
        String shown = String.join("\n    ", difference);
        List<String> meaning = difference.stream().filter(RunResumer::changesWhatDoneMeans).toList();
        if (!meaning.isEmpty()) {
            // Partitions done under one load mode cannot be finished under another: turning delete-missing on would
            // delete the rows of the partitions merged before the break, whose keys were never collected.
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.RESUME007, "stream '" + stream.name()
                    + "' changed how it loads since run " + runId + " started, and its done partitions were loaded the "
                    + "old way; not even --force resumes that:\n    " + String.join("\n    ", meaning),
                    "resume with the spec the run started with, or start a new run without --resume");
        }
        if (!force) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.RESUME002, "stream '" + stream.name()
                    + "' changed since run " + runId + " started; resuming could copy rows twice or miss some:\n    "
                    + shown, "resume with the spec the run started with, start a new run without --resume, or pass "
                    + "--force to keep the done partitions and copy the rest as recorded");
        }
        notes.add("stream " + stream.name() + ": changed since run " + runId + " started (--force):\n    " + shown);
    }

    /** A changed definition line that gives the done partitions another meaning: how the rows were loaded. */
    private static boolean changesWhatDoneMeans(String line) {
        String key = line.substring(2);
        return key.startsWith("load-mode:") || key.startsWith("merge-key:") || key.startsWith("on-duplicate:")
                || key.startsWith("delete-missing:") || key.startsWith("incremental.");
    }

    private StreamPlan restore(StreamPlan stream, StreamBinding binding, List<LedgerPartition> stored, String runId,
                               List<String> notes) {
        Map<String, PartitionPlan> planned = stream.allPartitions().stream()
                .collect(Collectors.toMap(PartitionPlan::id, Function.identity(), (a, b) -> a));
        List<PartitionPlan> all = new ArrayList<>();
        List<PartitionPlan> pending = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        long done = 0;
        for (LedgerPartition recorded : stored) {
            Optional<PartitionPlan> restored = restorePartition(stream, binding, recorded, planned);
            if (restored.isEmpty()) {
                missing.add(recorded.partitionId());
                continue;
            }
            PartitionPlan plan = restored.get();
            all.add(plan);
            if (recorded.state() == LedgerPartition.State.DONE) {
                done++;
            } else {
                pending.add(plan);
            }
        }
        boolean newFiles = stream.spec().incremental().map(IncrementalSpec::newFiles)
                .orElse(false);
        if (!missing.isEmpty() && newFiles) {
            // A file gone since the run planned it: loaded already (done), or never (the run records it as not
            // loaded, so a later run loads it should it come back). Nothing that exists is skipped or loaded twice.
            for (LedgerPartition recorded : stored) {
                if (missing.contains(recorded.partitionId())) {
                    if (recorded.state() == LedgerPartition.State.DONE) {
                        done++;
                    } else {
                        notes.add("stream " + stream.name() + ": " + recorded.partitionId() + " is gone since run "
                                + runId + " planned it: not loaded (a later run loads it if it comes back)");
                    }
                }
            }
            missing.clear();
        }
        if (!missing.isEmpty()) {
            // Not even --force: skipping them would lose their rows, and planning them anew could copy rows twice.
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.RESUME003, "stream '" + stream.name() + "': "
                    + missing.size() + " partition(s) of run " + runId + " cannot be restored and a new plan splits "
                    + "differently: " + String.join(", ", missing.subList(0, Math.min(5, missing.size())))
                    + (missing.size() > 5 ? ", ..." : ""), "start a new run without --resume"
                    + (stream.spec().load().emptiesFirst() ? " (load-mode truncate copies "
                    + "everything again)" : "; with load-mode append, first delete what run " + runId + " added"));
        }
        pending.sort(Comparator.comparingLong(PartitionPlan::estimatedRows).reversed());
        notes.add("stream " + stream.name() + ": resuming run " + runId + ": " + done + " of " + stored.size()
                + " partitions done before, copying " + pending.size() + "; a new snapshot is taken, so partitions copied before and after the break may reflect "
                + "different moments");
        return stream.withPartitions(all, pending);
    }

    /**
     * A recorded partition as the source rebuilds it from its checkpoint, else the fresh plan's partition of the same
     * id (which only an identical plan has), at its recorded position. Resumed and joined runs restore this way.
     */
    public static Optional<PartitionPlan> restorePartition(StreamPlan stream, StreamBinding binding,
                                                            LedgerPartition recorded,
                                                            Map<String, PartitionPlan> planned) {
        try {
            if (!recorded.checkpoint().isEmpty()) {
                Optional<SourcePartition> partition = binding.source().restore(recorded.checkpoint());
                if (partition.isPresent()) {
                    return Optional.of(binding.bind(PartitionPlan.of(recorded.index(), partition.get(),
                            binding.source().readStatement(partition.get(), binding.projection())),
                            partition.get()));
                }
            }
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "stream '" + stream.name() + "', partition " + recorded.partitionId());
        }
        return Optional.ofNullable(planned.get(recorded.partitionId())).map(p -> p.at(recorded.index()));
    }

    private static String state(LedgerStream stream) {
        return stream.state().name().toLowerCase(java.util.Locale.ROOT) + " since "
                + stream.finishedAt().orElse(stream.startedAt());
    }

    /**
     * The ledger reads of one check, each once per ledger: the streams of a run or of the spec's newest runs are read
     * for the group of streams that share a store (a target connection's ledger), not for each stream of it. A
     * pattern of a thousand tables read the whole run a thousand times.
     */
    private final class Reads {
        private final BoundPlan plan;
        private final Map<String, List<LedgerStream>> ofRun = new java.util.HashMap<>();
        private final Map<String, Map<String, LedgerStream>> byName = new java.util.HashMap<>();
        private final Map<String, List<LedgerStream>> ofSpec = new java.util.HashMap<>();

        Reads(BoundPlan plan) {
            this.plan = plan;
        }

        /** The streams that share a store: one target connection's ledger. */
        String group(StreamPlan stream) {
            return plan.binding(stream).targetConnection() + "\u0000" + call(plan, stream, Ledger::describe);
        }

        List<LedgerStream> streamsOfRun(StreamPlan stream, String runId) {
            return ofRun.computeIfAbsent(group(stream), g -> call(plan, stream, l -> {
                l.ensureReady();
                return l.streamsOfRun(runId);
            }));
        }

        Optional<LedgerStream> streamOfRun(StreamPlan stream, String runId) {
            String group = group(stream);
            Map<String, LedgerStream> streams = byName.computeIfAbsent(group, g -> {
                Map<String, LedgerStream> named = new java.util.HashMap<>();
                streamsOfRun(stream, runId).forEach(s -> named.putIfAbsent(s.stream(), s));
                return named;
            });
            return Optional.ofNullable(streams.get(stream.name()));
        }

        List<LedgerStream> streamsOfSpec(StreamPlan stream) {
            return ofSpec.computeIfAbsent(group(stream), g -> call(plan, stream, l -> {
                l.ensureReady();
                return l.streamsOfSpec(plan.plan().spec().name(), 50);
            }));
        }
    }

    private interface LedgerCall<T> {
        T apply(Ledger ledger) throws ConnectorException;
    }

    private static <T> T call(BoundPlan plan, StreamPlan stream, LedgerCall<T> call) {
        Ledger ledger = plan.binding(stream).ledger().orElseThrow(() -> new SluiceException(ErrorKind.USAGE,
                RunnerCode.RESUME001, "stream '" + stream.name() + "' keeps no ledger (ledger: off), so runs of this spec "
                + "cannot be resumed", "remove ledger: off from the spec to make later runs resumable"));
        try {
            return call.apply(ledger);
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "stream '" + stream.name() + "' ledger");
        }
    }
}
