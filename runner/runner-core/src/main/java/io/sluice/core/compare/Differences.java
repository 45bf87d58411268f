package io.sluice.core.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** The differences of one stream: every one counted, the first {@code limit} kept to be listed. */
final class Differences {
    private final int limit;
    private final List<String> keyNames;
    private final List<String> columnNames;
    /** Keys are {@link PortableRowText}s, shown decoded. */
    private final boolean portableRows;
    private final List<Difference> listed = new ArrayList<>();
    private long count;

    /**
     * @param keyNames    the target names of the key's columns ({@code row} for a table without a key)
     * @param columnNames the target names of the compared columns, in the rows' order
     */
    Differences(int limit, List<String> keyNames, List<String> columnNames, boolean portableRows) {
        this.portableRows = portableRows;
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        this.limit = limit;
        this.keyNames = List.copyOf(requireNonNull(keyNames, "keyNames is null"));
        this.columnNames = List.copyOf(requireNonNull(columnNames, "columnNames is null"));
    }

    void add(List<String> key, Difference.Kind kind, long times) {
        add(key, kind, List.of(), times);
    }

    /** A changed row: the columns whose hashes differ between {@code source} and {@code target}. */
    void changed(List<String> key, List<Long> source, List<Long> target) {
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < columnNames.size(); i++) {
            if (!java.util.Objects.equals(source.get(i), target.get(i))) {
                columns.add(columnNames.get(i));
            }
        }
        add(key, Difference.Kind.CHANGED, columns, 1);
    }

    private void add(List<String> key, Difference.Kind kind, List<String> columns, long times) {
        for (long i = 0; i < times && listed.size() < limit; i++) {
            Map<String, String> named = new LinkedHashMap<>();
            for (int k = 0; k < keyNames.size(); k++) {
                named.put(keyNames.get(k), portableRows ? PortableRowText.display(key.get(k)) : key.get(k));
            }
            listed.add(new Difference(named, kind, columns));
        }
        count += times;
    }

    long count() {
        return count;
    }

    List<Difference> listed() {
        return List.copyOf(listed);
    }
}
