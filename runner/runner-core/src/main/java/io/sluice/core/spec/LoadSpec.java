package io.sluice.core.spec;

import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How a stream loads its target, as written with its defaults applied once ({@link LoadBinding}): {@code load-mode}
 * and the keys that go with it, {@code merge-key}, {@code on-duplicate}, {@code delete-missing}, {@code keep-previous},
 * {@code indexes}, {@code reset-sequences}. The core asks this value what the mode means for a run (whether it empties
 * the target first, whether the target ends as the source, ...) instead of switching on the mode itself.
 *
 * @param resetSequences empty: the target's default
 * @param schemaChanges  {@code schema-changes}: what a difference between the source's columns and the table's does
 */
public record LoadSpec(LoadMode mode, List<String> mergeKey, LoadRequest.OnDuplicate onDuplicate,
                       boolean deleteMissing, boolean keepPrevious, LoadRequest.Indexes indexes,
                       Optional<Boolean> resetSequences, SchemaChanges schemaChanges) {
    public static final LoadSpec DEFAULT = new LoadSpec(LoadMode.APPEND, List.of(), LoadRequest.OnDuplicate.ERROR,
            false, false, LoadRequest.Indexes.KEEP, Optional.empty(), SchemaChanges.FAIL);

    public LoadSpec {
        requireNonNull(mode, "mode is null");
        mergeKey = List.copyOf(requireNonNull(mergeKey, "mergeKey is null"));
        requireNonNull(onDuplicate, "onDuplicate is null");
        requireNonNull(indexes, "indexes is null");
        requireNonNull(resetSequences, "resetSequences is null");
        requireNonNull(schemaChanges, "schemaChanges is null");
    }

    /** The same settings with {@code load-mode} {@code other}. */
    public LoadSpec withMode(LoadMode other) {
        return new LoadSpec(other, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                schemaChanges);
    }

    /** What the target is asked, for a load whose index builds may run {@code degree} at once. */
    public LoadRequest request(int degree) {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                Math.max(1, degree), schemaChanges);
    }

    /** This load as an append that deletes nothing: what a run that writes no rows ({@code --schema-only}) does. */
    public LoadSpec appending() {
        return new LoadSpec(LoadMode.APPEND, mergeKey, onDuplicate, false, false, indexes, resetSequences,
                schemaChanges);
    }

    /** The mode as the spec spells it. */
    public String spelled() {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    /** The target is emptied once before the first partition ({@code truncate}). */
    public boolean emptiesFirst() {
        return mode == LoadMode.TRUNCATE;
    }

    /**
     * The run writes the target's whole content ({@code truncate}, {@code replace}): one worker may load it in one
     * transaction, and a partition of the target holds exactly the partition of the source.
     */
    public boolean writesWholeContent() {
        return mode == LoadMode.TRUNCATE || mode == LoadMode.REPLACE;
    }

    /** Once done, the target holds what the source had and nothing else, so the two compare whole. */
    public boolean endsAsSource() {
        return writesWholeContent() || mode == LoadMode.MERGE && deleteMissing;
    }

    /** Rows only go in, whatever the target holds ({@code append}): a rerun of a partition would add them again. */
    public boolean appends() {
        return mode == LoadMode.APPEND;
    }

    /** The load has steps after its last partition (a swap, deleting the missing rows, index builds). */
    public boolean finishesAfterLastPartition() {
        return mode == LoadMode.REPLACE || deleteMissing && mode == LoadMode.MERGE
                || indexes == LoadRequest.Indexes.REBUILD;
    }

    /** How the target's transactions are cut, for people; {@code oneTransaction}: as one. */
    public String transactions(boolean oneTransaction) {
        if (oneTransaction && mode == LoadMode.REPLACE) {
            return "one for the copy (TRUNCATE of the new table, the source read whole, COMMIT), then the swap in "
                    + "one: a failure leaves the old table";
        }
        if (oneTransaction) {
            return "one for the stream (TRUNCATE, the source read whole, COMMIT): all or nothing, a failure "
                    + "leaves the old rows";
        }
        return switch (mode) {
            case TRUNCATE -> "TRUNCATE committed first, then one per partition";
            case REPLACE -> "the new table created first, then one per partition, then the swap in one";
            case MERGE -> "one per partition (COPY into a staging table, then INSERT ... ON CONFLICT)";
            case APPEND -> "one per partition";
        };
    }
}
