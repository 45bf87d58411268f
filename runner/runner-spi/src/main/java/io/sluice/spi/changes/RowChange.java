package io.sluice.spi.changes;

import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One row change read from a source's change feed, each value as bytes in its relation's
 * {@link ChangeRelation#format()}; a {@code null} value is SQL NULL.
 *
 * @param oldKey   for an UPDATE that changed the row's identity and for a DELETE: the old row's values, where only
 *                 the identity columns count (the others may be null); empty otherwise
 * @param values   for an INSERT and an UPDATE: the new row, one value per {@link ChangeRelation#columns()} entry;
 *                 empty for a DELETE and a TRUNCATE
 * @param unchanged for an UPDATE: which values the source did not send because they did not change (a large
 *                 out-of-line value, PostgreSQL's TOAST): the target keeps its own; null when every value came
 */
public record RowChange(Kind kind, ChangeRelation relation, List<byte[]> oldKey, List<byte[]> values,
                        boolean[] unchanged) {
    public enum Kind { INSERT, UPDATE, DELETE, TRUNCATE }

    public RowChange {
        requireNonNull(kind, "kind is null");
        requireNonNull(relation, "relation is null");
        requireNonNull(oldKey, "oldKey is null");
        requireNonNull(values, "values is null");
    }

    /** Whether value {@code column} was left out as unchanged. */
    public boolean isUnchanged(int column) {
        return unchanged != null && unchanged[column];
    }

    /** Whether any value was left out as unchanged. */
    public boolean hasUnchanged() {
        if (unchanged == null) {
            return false;
        }
        for (boolean u : unchanged) {
            if (u) {
                return true;
            }
        }
        return false;
    }

    /** Whether the old key's value {@code column} equals the new row's (an UPDATE that keeps it). */
    public boolean keeps(int column) {
        return Arrays.equals(oldKey.get(column), values.get(column));
    }

    @Override
    public String toString() {
        return kind + " " + relation.name() + " " + oldKey.size() + " old key values, " + values.size() + " values"
                + (unchanged == null ? "" : " unchanged " + Arrays.toString(unchanged));
    }
}
