package io.sluice.spi.read;

public enum Consistency {
    /** All partitions read one snapshot of the source (when the source supports it). */
    SNAPSHOT,
    /** Each partition reads whatever is committed when it starts. */
    NONE
}
