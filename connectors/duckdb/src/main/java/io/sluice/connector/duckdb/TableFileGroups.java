package io.sluice.connector.duckdb;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Which data files of a table version each partition reads. A partition costs a read of the table's metadata, a
 * COPY and a ledger row, and a table written by a streaming job holds thousands of files of a few rows: so
 * consecutive small files (in file order) are read together, up to {@code rowsPerGroup} rows a partition. That is at
 * most {@value #MAX_ROWS_PER_GROUP} rows (the default {@code batch-size}), and at most the table's rows over
 * {@value #MIN_GROUPS} or four per reader, so a table still splits into enough partitions to balance {@code degree}
 * readers, and a table of a few files keeps one partition per file.
 *
 * @param groups       the files of each partition, in file order
 * @param rowsPerGroup the most rows a group of several files holds (a file holding more is a partition alone)
 */
record TableFileGroups(List<List<String>> groups, long rowsPerGroup) {
    static final long MAX_ROWS_PER_GROUP = 1L << 20;
    static final int MIN_GROUPS = 16;

    TableFileGroups {
        groups = List.copyOf(requireNonNull(groups, "groups is null"));
    }

    /** Groups {@code rows} (live rows by file, in file order) for {@code degree} readers. */
    static TableFileGroups of(Map<String, Long> rows, int degree) {
        long total = rows.values().stream().mapToLong(Long::longValue).sum();
        long limit = Math.min(MAX_ROWS_PER_GROUP, Math.max(1, total / Math.max(MIN_GROUPS, 4L * degree)));
        List<List<String>> groups = new ArrayList<>();
        List<String> group = new ArrayList<>();
        long groupRows = 0;
        for (Map.Entry<String, Long> file : rows.entrySet()) {
            if (!group.isEmpty() && groupRows + file.getValue() > limit) {
                groups.add(group);
                group = new ArrayList<>();
                groupRows = 0;
            }
            group.add(file.getKey());
            groupRows += file.getValue();
        }
        if (!group.isEmpty()) {
            groups.add(group);
        }
        return new TableFileGroups(groups, limit);
    }

    /** One partition per file: the runner tells what it loaded by file ({@code new-snapshots}). */
    static TableFileGroups oneEach(Map<String, Long> rows) {
        return new TableFileGroups(rows.keySet().stream().map(List::of).toList(), 0);
    }
}
