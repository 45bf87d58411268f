package io.sluice.connector.duckdb;

import io.sluice.spi.read.SourcePartition;

import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * One partition: the relation it reads ({@code relation}, a complete DuckDB query) and, when it reads exactly one
 * file, that file (named in data errors).
 *
 * @param wholeFile the partition reads its file whole, unfiltered, so a row count from the file's footer is exact
 * @param tableFiles for data files of an Iceberg or Delta table, the files and the table version they are read at:
 *                   what a resumed run rebuilds the partition from ({@link #checkpoint()})
 */
record DuckDbPartition(String id, String predicate, String relation, Optional<String> file, long estimatedRows,
                       long estimatedBytes, boolean wholeFile, Optional<String> version,
                       Optional<LakeTable.PinnedFiles> tableFiles) implements SourcePartition {
    DuckDbPartition {
        requireNonNull(id, "id is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(file, "file is null");
        requireNonNull(version, "version is null");
        requireNonNull(tableFiles, "tableFiles is null");
    }

    /**
     * Data files of a pinned table version, read whole: {@code rows} (their live rows, counted through the table's
     * scan at plan) is exact.
     */
    static DuckDbPartition of(String id, LakeTable.PinnedFiles files, long rows, long bytes) {
        return new DuckDbPartition(id, files.predicate(), files.relation(), files.file(), rows, bytes, true,
                Optional.empty(), Optional.of(files));
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

    /**
     * A Parquet footer's count when the partition reads its file whole, or a table's files' live rows: a shorter read
     * fails the partition.
     */
    @Override
    public OptionalLong exactRows() {
        return wholeFile && (file.isPresent() || tableFiles.isPresent()) && estimatedRows >= 0
                ? OptionalLong.of(estimatedRows) : OptionalLong.empty();
    }

    /** A table's data files at their pinned version: what {@link LakeCheckpoint} rebuilds the partition from. */
    @Override
    public Optional<String> checkpoint() {
        return tableFiles.isPresent() ? Optional.of(LakeCheckpoint.of(this)) : Optional.empty();
    }

    /** What data errors say the value came from. */
    String where() {
        return file.map(f -> "file " + f).orElse("partition " + id + " (" + predicate + ")");
    }
}
