package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.ColumnMapping;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.data.TablePlaceholders;
import io.sluice.spi.error.ErrorKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Maps source columns onto target columns. By name: exact match first, then case-insensitive, and an ambiguous
 * case-insensitive match is an error. By position: the n-th source column into the n-th target column.
 *
 * <p>Generated columns (STORED or VIRTUAL, as the server reports them) cannot be written. A generated source column
 * meeting a generated target column is left out: the target computes its own values, as it does for the source's
 * (identical tables are the common case). A generated source column into a plain target column is copied, its values
 * materialised. A plain source column into a generated target column is refused. Identity columns take the source
 * values.
 */
public final class ColumnMapper {
    private ColumnMapper() {
    }

    /** The pairs to copy; see {@link #plan} for the pairs left out as well. */
    public static List<ColumnPair> map(String stream, List<Column> source, List<Column> target, ColumnMapping mode) {
        return plan(stream, source, target, mode).copied();
    }

    public static ColumnMappingPlan plan(String stream, List<Column> source, List<Column> target, ColumnMapping mode) {
        return plan(stream, source, target, mode, SchemaChanges.FAIL, "the target table", Column::typeName);
    }

    /**
     * {@code changes}: {@link SchemaChanges#IGNORE_NEW} leaves source columns without a target column unread; any
     * other policy refuses them (the target has added what {@code add-columns} and {@code widen} add), naming each
     * with the {@code ALTER TABLE} of {@code table} that adds it as {@code addedType} types it.
     */
    public static ColumnMappingPlan plan(String stream, List<Column> source, List<Column> target, ColumnMapping mode,
                                         SchemaChanges changes, String table, Function<Column, String> addedType) {
        List<ColumnPair> matched = switch (mode) {
            case NAME -> byName(stream, source, target, changes, table, addedType);
            case POSITION -> byPosition(stream, source, target);
        };
        List<Column> notRead = source.stream().filter(s -> matched.stream().noneMatch(p -> p.source() == s))
                .toList();
        List<ColumnPair> copied = new ArrayList<>();
        List<ColumnPair> leftOut = new ArrayList<>();
        for (ColumnPair pair : matched) {
            if (!pair.target().isGenerated()) {
                copied.add(pair);
            } else if (pair.source().isGenerated()) {
                leftOut.add(pair);
            } else {
                throw intoGenerated(stream, pair);
            }
        }
        return new ColumnMappingPlan(copied, leftOut, notRead);
    }

    private static SluiceException intoGenerated(String stream, ColumnPair pair) {
        return new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.MAP004,
                "stream '" + stream + "': source column \"" + pair.source().name() + "\" maps onto target column \""
                        + pair.target().name() + "\", which is GENERATED ALWAYS AS (...) "
                        + pair.target().generation() + ": the target computes it and a copy cannot write it",
                "read fewer columns with a source query that leaves \"" + pair.source().name() + "\" out, or make "
                        + "the target column a plain one");
    }

    private static List<ColumnPair> byName(String stream, List<Column> source, List<Column> target,
                                           SchemaChanges changes, String table, Function<Column, String> addedType) {
        List<ColumnPair> pairs = new ArrayList<>();
        List<Column> used = new ArrayList<>();
        List<Column> unmatched = new ArrayList<>();
        for (Column s : source) {
            Column match = target.stream().filter(t -> t.name().equals(s.name())).findFirst().orElse(null);
            if (match == null) {
                List<Column> folded = target.stream()
                        .filter(t -> t.name().toLowerCase(Locale.ROOT).equals(s.name().toLowerCase(Locale.ROOT)))
                        .toList();
                if (folded.size() > 1) {
                    throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.MAP002,
                            "stream '" + stream + "': source column \"" + s.name() + "\" matches several target columns "
                                    + "when case is ignored: " + names(folded),
                            "rename one of the target columns, select the source column under the exact target name, "
                                    + "or use column-mapping: position");
                }
                match = folded.isEmpty() ? null : folded.getFirst();
            }
            if (match == null) {
                unmatched.add(s);
                continue;
            }
            if (used.contains(match)) {
                throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.MAP002,
                        "stream '" + stream + "': two source columns map onto target column \"" + match.name() + "\"",
                        "alias one of them in a source query");
            }
            used.add(match);
            pairs.add(new ColumnPair(s, match));
        }
        if (!unmatched.isEmpty() && changes != SchemaChanges.IGNORE_NEW) {
            throw unmatched(stream, unmatched, target, table, addedType);
        }
        return pairs;
    }

    /** Every source column the target lacks, at once, with the statement that adds each. */
    private static SluiceException unmatched(String stream, List<Column> unmatched, List<Column> target, String table,
                                             Function<Column, String> addedType) {
        // The rows copied before hold what the source's rows from before the column hold (its default, kept by
        // PostgreSQL as their value): added without it, they would read NULL.
        List<String> adds = unmatched.stream().map(c -> "ALTER TABLE " + table + " ADD COLUMN \""
                + c.name().replace("\"", "\"\"") + "\" " + addedType.apply(c) + c.earlierRows().oneValue().map(v ->
                (c.nullable() ? "" : " NOT NULL") + " DEFAULT " + TablePlaceholders.literal(v))
                .orElse("")).toList();
        boolean one = unmatched.size() == 1;
        return new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.MAP001,
                "stream '" + stream + "': source column" + (one ? " " : "s ") + names(unmatched).replaceAll(
                        "^\\[|]$", "") + (one ? " has" : " have") + " no target column of that name; target columns: "
                        + names(target),
                "add the column" + (one ? "" : "s") + " to the target table (" + String.join("; ", adds)
                        + "), or set schema-changes: add-columns to have each run add new source columns, or "
                        + "schema-changes: ignore-new to leave them unread");
    }

    /**
     * A source without generated columns lines up with the target's writable columns (generated ones skipped, as
     * nothing can be written there). A source with generated columns is a table of the target's shape: it lines up
     * with every target column, so generated meets generated.
     */
    private static List<ColumnPair> byPosition(String stream, List<Column> source, List<Column> target) {
        boolean wholeShape = source.stream().anyMatch(Column::isGenerated);
        List<Column> lined = wholeShape ? target : target.stream().filter(c -> !c.isGenerated()).toList();
        if (source.size() > lined.size()) {
            throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.MAP003,
                    "stream '" + stream + "': the source has " + source.size() + " columns but the target has only "
                            + lined.size() + (wholeShape ? " columns " : " writable columns ") + names(lined),
                    "read fewer columns with a source query, or add columns to the target");
        }
        List<ColumnPair> pairs = new ArrayList<>();
        for (int i = 0; i < source.size(); i++) {
            pairs.add(new ColumnPair(source.get(i), lined.get(i)));
        }
        return pairs;
    }

    private static String names(List<Column> columns) {
        return columns.stream().map(c -> "\"" + c.name() + "\"").toList().toString();
    }
}
