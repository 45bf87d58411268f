package io.sluice.spi;

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
}
