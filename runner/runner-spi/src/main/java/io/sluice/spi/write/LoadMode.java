package io.sluice.spi.write;

public enum LoadMode {
    /** Add rows to what the target holds. */
    APPEND,
    /** Empty the target once, before the first partition writes. */
    TRUNCATE,
    /**
     * Load a new copy of the target beside it and swap it in at the end in one short transaction: readers see the old
     * rows until the swap and the new ones after it, never an empty or partial table.
     */
    REPLACE,
    /** Insert or update rows by a key ({@link LoadRequest#mergeKey()}), each partition in its own transaction. */
    MERGE
}
