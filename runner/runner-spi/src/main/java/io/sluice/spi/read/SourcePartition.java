package io.sluice.spi.read;

/**
 * One unit of work of a source. Connectors implement it with whatever they need to read it (a predicate, a file).
 */
public interface SourcePartition {
    /**
     * Identifies the partition within its stream's plan, stable when the same plan is made again
     * (e.g. {@code ctid:1000-2000}, {@code file:orders-3.parquet}).
     */
    String id();

    /** The partition's predicate or description as shown in plans and the ledger. No secrets. */
    String predicate();

    /** Estimated rows, or -1 when unknown. Workers take the largest partitions first. */
    long estimatedRows();

    /** Estimated bytes, or -1 when unknown. */
    long estimatedBytes();

    /**
     * The rows this partition holds, when the source knows the number exactly at plan time (a Parquet file read
     * whole: its footer says). A read that returns another number fails the partition instead of committing it, so a
     * reader that stops early without an error cannot pass for done. Empty (the default) when only estimates exist.
     */
    default java.util.OptionalLong exactRows() {
        return java.util.OptionalLong.empty();
    }

    /**
     * The partition's condition in terms of column names only (no ctid, no file), so the target can select the same
     * rows for per-partition verification when columns map by name. Empty when no such condition exists.
     */
    default java.util.Optional<String> portablePredicate() {
        return java.util.Optional.empty();
    }

    /**
     * A self-contained text from which {@link Source#restore(String)} rebuilds exactly this partition, so a resumed
     * run reads the same rows even when a fresh plan would split differently (e.g. a table that grew). Empty when
     * the source cannot restore partitions; a resume then plans again and accepts only an identical plan.
     */
    default java.util.Optional<String> checkpoint() {
        return java.util.Optional.empty();
    }

    /**
     * What identifies the partition's content beyond its id, e.g. a file's size and modification time: an
     * incremental {@code new-files} stream skips a partition whose id and version a done run loaded before. Empty
     * when the source cannot tell.
     */
    default java.util.Optional<String> version() {
        return java.util.Optional.empty();
    }
}
