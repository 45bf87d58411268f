package io.sluice.spi;

public enum LoadMode {
    /** Add rows to what the target holds. */
    APPEND,
    /** Empty the target once, before the first partition writes. */
    TRUNCATE
}
