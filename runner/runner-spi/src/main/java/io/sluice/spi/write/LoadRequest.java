package io.sluice.spi.write;

import io.sluice.spi.data.SchemaChanges;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a stream asks of its target beyond writing rows, as the spec says it (validated): the load mode and the keys
 * that go with it. A target that cannot do something refuses it at plan time ({@link Target#planLoad}).
 *
 * @param mergeKey       the columns rows are matched on for {@link LoadMode#MERGE}; empty: the target's primary key
 * @param onDuplicate    what a merge does with two source rows of one key in one partition
 * @param deleteMissing  a merge deletes, at the end, the target rows whose key the source did not have
 * @param keepPrevious   a replace keeps the table it swapped out, as {@code <table>_old}
 * @param indexes        whether secondary indexes are dropped before the load and built again after it
 * @param resetSequences whether sequences of identity and serial columns are set past the largest loaded value;
 *                       empty: the target's default (yes after a truncate, a replace, or into a table it created)
 * @param degree         how many index builds may run at once
 * @param schemaChanges  what the target does when the source's columns no longer match the table's (matched by
 *                       name; a stream whose columns map by position always gets {@link SchemaChanges#FAIL})
 * @param checks         {@code checks:}, evaluated by the target before the data goes live ({@link LoadCheck})
 * @param beforeHook     the stream has a {@code before:} hook, which runs before the load prepares the table and may
 *                       make what a created table needs (its schema): the plan cannot know, so it says so instead of
 *                       refusing
 * @param rejectsTable   {@code rejects: table}: where rows that cannot be loaded go instead, with the partition's
 *                       rows ({@link PartitionWriter#reject}); the target creates it when missing, refuses it when it
 *                       has another shape
 * @param newRowsOnly    the run reads only the source rows past the last run's ({@code incremental:}): the rows
 *                       already in the table are not written again, so a column added to it must not need their
 *                       values from the source
 * @param scope          what of the load the run does: everything, only what it creates ({@code --schema-only}), or
 *                       only the rows ({@code --data-only})
 */
public record LoadRequest(LoadMode mode, List<String> mergeKey, OnDuplicate onDuplicate, boolean deleteMissing,
                          boolean keepPrevious, Indexes indexes, java.util.Optional<Boolean> resetSequences,
                          int degree, SchemaChanges schemaChanges, List<LoadCheck> checks, boolean beforeHook,
                          java.util.Optional<String> rejectsTable, boolean newRowsOnly, Scope scope) {
    /** What of a load a run does, as pg_dump's {@code --schema-only} and {@code --data-only} split a dump. */
    public enum Scope {
        /** What the load creates (when it creates), then the rows. */
        ALL,
        /** Only what the load creates (tables with their definitions, a schema's objects): no rows are written. */
        SCHEMA_ONLY,
        /** Only the rows, into tables (and objects) that exist: nothing is created. */
        DATA_ONLY
    }


    /** Two source rows with one merge key in one partition. */
    public enum OnDuplicate {
        /** Fail the partition, naming the key. */
        ERROR,
        /** The row read last wins. */
        LAST,
        /** Every row of the key goes to the rejects table ({@code rejectsTable}), none loads. */
        REJECT
    }

    /** What happens to the target's indexes around a load. */
    public enum Indexes {
        /** Indexes stay; every row updates them as it is written. */
        KEEP,
        /** Dropped before the load (their definitions kept in the ledger) and built again after it. */
        REBUILD
    }

    public LoadRequest {
        requireNonNull(mode, "mode is null");
        mergeKey = List.copyOf(requireNonNull(mergeKey, "mergeKey is null"));
        requireNonNull(onDuplicate, "onDuplicate is null");
        requireNonNull(indexes, "indexes is null");
        requireNonNull(resetSequences, "resetSequences is null");
        if (degree < 1) {
            throw new IllegalArgumentException("degree must be positive: " + degree);
        }
        requireNonNull(schemaChanges, "schemaChanges is null");
        checks = List.copyOf(requireNonNull(checks, "checks is null"));
        requireNonNull(rejectsTable, "rejectsTable is null");
        requireNonNull(scope, "scope is null");
    }

    /** A request that sets no rows aside. */
    public LoadRequest(LoadMode mode, List<String> mergeKey, OnDuplicate onDuplicate, boolean deleteMissing,
                       boolean keepPrevious, Indexes indexes, java.util.Optional<Boolean> resetSequences, int degree,
                       SchemaChanges schemaChanges, List<LoadCheck> checks, boolean beforeHook) {
        this(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences, degree, schemaChanges,
                checks, beforeHook, java.util.Optional.empty(), false, Scope.ALL);
    }

    /** The same request, setting rows that cannot be loaded aside in {@code table}. */
    public LoadRequest withRejects(String table) {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                degree, schemaChanges, checks, beforeHook, java.util.Optional.of(requireNonNull(table, "table is null")),
                newRowsOnly, scope);
    }

    /** A request without checks. */
    public LoadRequest(LoadMode mode, List<String> mergeKey, OnDuplicate onDuplicate, boolean deleteMissing,
                       boolean keepPrevious, Indexes indexes, java.util.Optional<Boolean> resetSequences, int degree,
                       SchemaChanges schemaChanges) {
        this(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences, degree, schemaChanges,
                List.of(), false);
    }

    /** The same request with {@code checks}. */
    public LoadRequest withChecks(List<LoadCheck> checks) {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                degree, schemaChanges, checks, beforeHook, rejectsTable, newRowsOnly, scope);
    }

    /** The same request, for a run that reads only the rows past the last run's ({@code incremental:}). */
    public LoadRequest withNewRowsOnly() {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                degree, schemaChanges, checks, beforeHook, rejectsTable, true, scope);
    }

    /** The same request, for a stream whose {@code before:} hook runs first. */
    public LoadRequest withBeforeHook() {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                degree, schemaChanges, checks, true, rejectsTable, newRowsOnly, scope);
    }

    /** The same request, for a run that does only {@code scope} of it. */
    public LoadRequest withScope(Scope scope) {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                degree, schemaChanges, checks, beforeHook, rejectsTable, newRowsOnly, scope);
    }

    /** A request whose columns must match the table's as they are ({@link SchemaChanges#FAIL}). */
    public LoadRequest(LoadMode mode, List<String> mergeKey, OnDuplicate onDuplicate, boolean deleteMissing,
                       boolean keepPrevious, Indexes indexes, java.util.Optional<Boolean> resetSequences, int degree) {
        this(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences, degree,
                SchemaChanges.FAIL);
    }

    /** A plain load in {@code mode}, with the defaults the spec has. */
    public static LoadRequest of(LoadMode mode) {
        return new LoadRequest(mode, List.of(), OnDuplicate.ERROR, false, false, Indexes.KEEP,
                java.util.Optional.empty(), 1);
    }
}
