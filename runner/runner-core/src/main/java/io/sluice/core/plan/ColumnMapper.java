package io.sluice.core.plan;

import io.sluice.core.SluiceException;
import io.sluice.core.spec.ColumnMapping;
import io.sluice.spi.Column;
import io.sluice.spi.ColumnPair;
import io.sluice.spi.ErrorKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Maps source columns onto the target's writable columns. By name: exact match first, then case-insensitive, and
 * an ambiguous case-insensitive match is an error. By position: the n-th source column into the n-th writable target
 * column. Target columns generated as STORED are never written; identity columns take the source values.
 */
public final class ColumnMapper {
    private ColumnMapper() {
    }

    public static List<ColumnPair> map(String stream, List<Column> source, List<Column> target, ColumnMapping mode) {
        List<Column> writable = target.stream().filter(c -> c.generation() != Column.Generation.STORED).toList();
        return switch (mode) {
            case NAME -> byName(stream, source, writable, target);
            case POSITION -> byPosition(stream, source, writable);
        };
    }

    private static List<ColumnPair> byName(String stream, List<Column> source, List<Column> writable, List<Column> all) {
        List<ColumnPair> pairs = new ArrayList<>();
        List<Column> used = new ArrayList<>();
        for (Column s : source) {
            Column match = writable.stream().filter(t -> t.name().equals(s.name())).findFirst().orElse(null);
            if (match == null) {
                List<Column> folded = writable.stream()
                        .filter(t -> t.name().toLowerCase(Locale.ROOT).equals(s.name().toLowerCase(Locale.ROOT)))
                        .toList();
                if (folded.size() > 1) {
                    throw new SluiceException(ErrorKind.PREFLIGHT, "MAP002",
                            "stream '" + stream + "': source column \"" + s.name() + "\" matches several target columns "
                                    + "when case is ignored: " + names(folded),
                            "rename one of the target columns, select the source column under the exact target name, "
                                    + "or use column-mapping: position");
                }
                match = folded.isEmpty() ? null : folded.getFirst();
            }
            if (match == null) {
                boolean generated = all.stream().anyMatch(t -> t.generation() == Column.Generation.STORED
                        && t.name().equalsIgnoreCase(s.name()));
                throw new SluiceException(ErrorKind.PREFLIGHT, "MAP001",
                        "stream '" + stream + "': source column \"" + s.name() + "\" has no "
                                + (generated ? "writable " : "") + "target column of that name"
                                + (generated ? " (the target's column is GENERATED ALWAYS ... STORED)" : "")
                                + "; target columns: " + names(writable),
                        "add the column to the target table, or read fewer columns with a source query");
            }
            if (used.contains(match)) {
                throw new SluiceException(ErrorKind.PREFLIGHT, "MAP002",
                        "stream '" + stream + "': two source columns map onto target column \"" + match.name() + "\"",
                        "alias one of them in a source query");
            }
            used.add(match);
            pairs.add(new ColumnPair(s, match));
        }
        return pairs;
    }

    private static List<ColumnPair> byPosition(String stream, List<Column> source, List<Column> writable) {
        if (source.size() > writable.size()) {
            throw new SluiceException(ErrorKind.PREFLIGHT, "MAP003",
                    "stream '" + stream + "': the source has " + source.size() + " columns but the target has only "
                            + writable.size() + " writable columns " + names(writable),
                    "read fewer columns with a source query, or add columns to the target");
        }
        List<ColumnPair> pairs = new ArrayList<>();
        for (int i = 0; i < source.size(); i++) {
            pairs.add(new ColumnPair(source.get(i), writable.get(i)));
        }
        return pairs;
    }

    private static String names(List<Column> columns) {
        return columns.stream().map(c -> "\"" + c.name() + "\"").toList().toString();
    }
}
