package io.sluice.connector.duckdb;

import io.sluice.spi.SourcePartition;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One partition: the relation it reads ({@code relation}, a complete DuckDB query) and, when it reads exactly one
 * file, that file (named in data errors).
 */
record DuckDbPartition(String id, String predicate, String relation, Optional<String> file, long estimatedRows,
                       long estimatedBytes) implements SourcePartition {
    DuckDbPartition {
        requireNonNull(id, "id is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(file, "file is null");
    }

    /** What data errors say the value came from. */
    String where() {
        return file.map(f -> "file " + f).orElse("partition " + id + " (" + predicate + ")");
    }
}
