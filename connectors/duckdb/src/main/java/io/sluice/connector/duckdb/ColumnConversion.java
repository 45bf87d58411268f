package io.sluice.connector.duckdb;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How one stream column is read and written: the DuckDB carrier expressions the read statement selects for it,
 * the encoder that turns them into the target's binary form, and a note for plans when the conversion is not
 * plain (truncation, time zone, slow path).
 */
record ColumnConversion(String sourceColumn, List<String> carriers, ColumnEncoder.Factory factory,
                        Optional<String> note) {
    ColumnConversion {
        requireNonNull(sourceColumn, "sourceColumn is null");
        carriers = List.copyOf(requireNonNull(carriers, "carriers is null"));
        requireNonNull(factory, "factory is null");
        requireNonNull(note, "note is null");
        if (carriers.isEmpty()) {
            throw new IllegalArgumentException("a conversion needs at least one carrier");
        }
    }
}
