package io.sluice.spi.read;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The rows one run of an incremental stream reads: those whose {@code cursor} (a column or expression of the source)
 * is above {@code after}, the highest value the last successful run read (absent on the first run), and at most
 * {@code upTo}, the highest value when this run planned (so rows committed while it runs wait for the next run).
 * Values are the source's own text form of the cursor; the source compares them in the cursor's type.
 */
public record RowWindow(String cursor, Optional<String> after, String upTo) {
    public RowWindow {
        requireNonNull(cursor, "cursor is null");
        requireNonNull(after, "after is null");
        requireNonNull(upTo, "upTo is null");
        if (cursor.isBlank()) {
            throw new IllegalArgumentException("cursor is blank");
        }
    }
}
