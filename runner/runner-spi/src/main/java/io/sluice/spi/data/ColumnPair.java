package io.sluice.spi.data;

import static java.util.Objects.requireNonNull;

/** A source column mapped onto a target column by the runner (by name or position). */
public record ColumnPair(Column source, Column target) {
    public ColumnPair {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
    }
}
