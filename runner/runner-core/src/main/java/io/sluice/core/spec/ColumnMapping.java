package io.sluice.core.spec;

public enum ColumnMapping {
    /** Exact name first, then case-insensitive; ambiguity is an error. */
    NAME,
    /** The n-th source column into the n-th writable target column. */
    POSITION
}
