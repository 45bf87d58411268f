package io.sluice.spi.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One row as {@code sluice compare} sees it: its key as text (for a table without a key, the row's whole text) and a
 * 64-bit hash of each column's canonical text, in the stream's column order; {@code null} where the value is NULL.
 */
public record HashedRow(List<String> key, List<Long> columnHashes) {
    public HashedRow {
        key = List.copyOf(requireNonNull(key, "key is null"));
        // NULL values are nulls in the list, which List.copyOf refuses.
        columnHashes = Collections.unmodifiableList(new ArrayList<>(requireNonNull(columnHashes,
                "columnHashes is null")));
    }
}
