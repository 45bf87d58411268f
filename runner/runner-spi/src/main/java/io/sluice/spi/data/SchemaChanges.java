package io.sluice.spi.data;

/**
 * {@code schema-changes}: how a load meets a source whose columns changed since the target table was made. Whatever
 * the policy, a change that could lose or alter a value (a narrower or unrelated type) is refused.
 */
public enum SchemaChanges {
    /** The columns must match as they are: a difference is refused, with the statement that fixes it. */
    FAIL,
    /** A new source column is added to the table (nullable); a column gone from the source is loaded as NULL. */
    ADD_COLUMNS,
    /** As {@link #ADD_COLUMNS}, and a target column narrower than its source is widened where nothing is lost. */
    WIDEN,
    /** New source columns are not read; a column gone from the source is loaded as NULL. */
    IGNORE_NEW;

    /** Whether the target changes its table's shape under this policy. */
    public boolean altersTarget() {
        return this == ADD_COLUMNS || this == WIDEN;
    }
}
