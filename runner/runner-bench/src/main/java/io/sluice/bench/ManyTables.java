package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The many-tables data set: 40 tables of mixed sizes in schema {@value #SCHEMA}, each the first rows of lineitem,
 * from one of 1 M rows down to fifteen of 500 (at SF 1; sizes follow the scale), so a run is dominated by a few
 * large tables while the many small ones test the per-table cost.
 */
final class ManyTables {
    static final String SCHEMA = "sluice_bench_many";
    /** Rows of each table at SF 1, largest first. */
    private static final long[] SIZES = sizes();

    private ManyTables() {
    }

    private static long[] sizes() {
        List<Long> sizes = new ArrayList<>();
        int[][] groups = {{1, 1_000_000}, {2, 400_000}, {4, 150_000}, {8, 30_000}, {10, 5_000}, {15, 500}};
        for (int[] group : groups) {
            for (int i = 0; i < group[0]; i++) {
                sizes.add((long) group[1]);
            }
        }
        return sizes.stream().mapToLong(Long::longValue).toArray();
    }

    static int count() {
        return SIZES.length;
    }

    static String name(int index) {
        return String.format("t%02d", index + 1);
    }

    static String qualified(int index) {
        return SCHEMA + "." + name(index);
    }

    static List<String> qualifiedNames() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count(); i++) {
            names.add(qualified(i));
        }
        return names;
    }

    /** Rows of table {@code index} at {@code scale}, never more than lineitem has. */
    static long rows(int index, double scale, long lineitemRows) {
        return Math.min(lineitemRows, Math.max(1, Math.round(SIZES[index] * scale)));
    }
}
