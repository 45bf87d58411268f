package io.sluice.spi.write;

import io.sluice.spi.data.RelationIdentity;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a target derived for a stream's load at plan time: the table the rows go into (as it is, or as the load will
 * create it) and the statements the load runs besides the partitions' COPY, in order, for {@code sluice plan}.
 *
 * @param table      the target table and its columns; for a table the load creates, the columns it will have
 * @param statements the exact statements run before the first and after the last partition (no secrets)
 * @param notes      what a person should know about the load, e.g. that the table is missing and will be created
 * @param shapeChanges what the load changes in the table's shape for {@code schema-changes}, one line each as the
 *                     run's summary records it, e.g. {@code added column b numeric to public.t}
 * @param rejects    the rejects table ({@code rejects:}) when it exists already: the planner refuses one the source reads
 */
public record LoadPlan(TargetTable table, List<String> statements, List<String> notes, List<String> shapeChanges,
                       java.util.Optional<RelationIdentity> rejects) {
    public LoadPlan {
        requireNonNull(rejects, "rejects is null");
        requireNonNull(table, "table is null");
        statements = List.copyOf(requireNonNull(statements, "statements is null"));
        notes = List.copyOf(requireNonNull(notes, "notes is null"));
        shapeChanges = List.copyOf(requireNonNull(shapeChanges, "shapeChanges is null"));
    }

    /** A plan that leaves the table's shape as it is. */
    public LoadPlan(TargetTable table, List<String> statements, List<String> notes) {
        this(table, statements, notes, List.of());
    }

    public LoadPlan(TargetTable table, List<String> statements, List<String> notes, List<String> shapeChanges) {
        this(table, statements, notes, shapeChanges, java.util.Optional.empty());
    }

    public static LoadPlan of(TargetTable table) {
        return new LoadPlan(table, List.of(), List.of());
    }

    /** This plan with what the target does before the first stream and once every stream is done. */
    public LoadPlan with(AcrossStreams across) {
        requireNonNull(across, "across is null");
        if (across.equals(AcrossStreams.NONE)) {
            return this;
        }
        List<String> allStatements = new java.util.ArrayList<>();
        across.before().forEach(s -> allStatements.add("before the first stream: " + s));
        allStatements.addAll(statements);
        across.after().forEach(s -> allStatements.add("once every stream is done: " + s));
        List<String> allNotes = new java.util.ArrayList<>(notes);
        allNotes.addAll(across.notes());
        return new LoadPlan(table, allStatements, allNotes, shapeChanges, rejects);
    }

    /**
     * What a target does across the streams of a run ({@link PlannedLoad#beginBeforeStreams},
     * {@link PlannedLoad#finishAfterStreams}), for the plan.
     *
     * @param before statements run before the first stream starts, in order
     * @param after  statements run once every stream is done, in order
     * @param notes  what a person should know, e.g. a foreign key left out because no stream copies its table
     */
    public record AcrossStreams(List<String> before, List<String> after, List<String> notes) {
        public static final AcrossStreams NONE = new AcrossStreams(List.of(), List.of(), List.of());

        public AcrossStreams {
            before = List.copyOf(requireNonNull(before, "before is null"));
            after = List.copyOf(requireNonNull(after, "after is null"));
            notes = List.copyOf(requireNonNull(notes, "notes is null"));
        }
    }
}
