package io.sluice.spi;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a target derived for a stream's load at plan time: the table the rows go into (as it is, or as the load will
 * create it) and the statements the load runs besides the partitions' COPY, in order, for {@code sluice plan}.
 *
 * @param table      the target table and its columns; for a table the load creates, the columns it will have
 * @param statements the exact statements run before the first and after the last partition (no secrets)
 * @param notes      what a person should know about the load, e.g. that the table is missing and will be created
 */
public record LoadPlan(TargetTable table, List<String> statements, List<String> notes) {
    public LoadPlan {
        requireNonNull(table, "table is null");
        statements = List.copyOf(requireNonNull(statements, "statements is null"));
        notes = List.copyOf(requireNonNull(notes, "notes is null"));
    }

    public static LoadPlan of(TargetTable table) {
        return new LoadPlan(table, List.of(), List.of());
    }

    /** This plan with what the target does once every stream is done appended. */
    public LoadPlan with(AfterStreams after) {
        requireNonNull(after, "after is null");
        if (after.statements().isEmpty() && after.notes().isEmpty()) {
            return this;
        }
        List<String> allStatements = new java.util.ArrayList<>(statements);
        after.statements().forEach(s -> allStatements.add("once every stream is done: " + s));
        List<String> allNotes = new java.util.ArrayList<>(notes);
        allNotes.addAll(after.notes());
        return new LoadPlan(table, allStatements, allNotes);
    }

    /**
     * What a target does once every stream of the run is done ({@link Target#finishAfterStreams}), for the plan.
     *
     * @param statements the statements, in order
     * @param notes      what a person should know, e.g. a foreign key left out because no stream copies its table
     */
    public record AfterStreams(List<String> statements, List<String> notes) {
        public static final AfterStreams NONE = new AfterStreams(List.of(), List.of());

        public AfterStreams {
            statements = List.copyOf(requireNonNull(statements, "statements is null"));
            notes = List.copyOf(requireNonNull(notes, "notes is null"));
        }
    }
}
