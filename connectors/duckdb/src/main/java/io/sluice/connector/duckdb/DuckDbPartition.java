package io.sluice.connector.duckdb;

import io.sluice.spi.SourcePartition;

import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * One partition: the relation it reads ({@code relation}, a complete DuckDB query) and, when it reads exactly one
 * file, that file (named in data errors).
 *
 * @param wholeFile the partition reads its file whole, unfiltered, so a row count from the file's footer is exact
 * @param pin       for a data file of an Iceberg or Delta table, the table version it is read at: what a resumed run
 *                  rebuilds the partition from ({@link #checkpoint()})
 */
record DuckDbPartition(String id, String predicate, String relation, Optional<String> file, long estimatedRows,
                       long estimatedBytes, boolean wholeFile, Optional<String> version,
                       Optional<LakeTable.Pin> pin) implements SourcePartition {
    DuckDbPartition {
        requireNonNull(id, "id is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(file, "file is null");
        requireNonNull(version, "version is null");
        requireNonNull(pin, "pin is null");
    }

    DuckDbPartition(String id, String predicate, String relation, Optional<String> file, long estimatedRows,
                    long estimatedBytes, boolean wholeFile, Optional<String> version) {
        this(id, predicate, relation, file, estimatedRows, estimatedBytes, wholeFile, version, Optional.empty());
    }

    /** A partition whose content has no version to tell (not one whole file, or one whose listing said nothing). */
    DuckDbPartition(String id, String predicate, String relation, Optional<String> file, long estimatedRows,
                    long estimatedBytes, boolean wholeFile) {
        this(id, predicate, relation, file, estimatedRows, estimatedBytes, wholeFile, Optional.empty());
    }

    /** A Parquet footer's count when the partition reads its file whole: a shorter read fails the partition. */
    @Override
    public OptionalLong exactRows() {
        return wholeFile && file.isPresent() && estimatedRows >= 0 ? OptionalLong.of(estimatedRows)
                : OptionalLong.empty();
    }

    /** A table's data file at its pinned version: what {@link LakeCheckpoint} rebuilds it from. */
    @Override
    public Optional<String> checkpoint() {
        return pin.isPresent() && file.isPresent() ? Optional.of(LakeCheckpoint.of(this)) : Optional.empty();
    }

    /** What data errors say the value came from. */
    String where() {
        return file.map(f -> "file " + f).orElse("partition " + id + " (" + predicate + ")");
    }
}
