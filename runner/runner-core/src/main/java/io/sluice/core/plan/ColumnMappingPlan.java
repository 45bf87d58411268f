package io.sluice.core.plan;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How a stream's source columns meet its target's.
 *
 * @param copied  the pairs the copy reads and writes, in source order
 * @param leftOut pairs generated on both sides: the target computes its own values, so the copy neither reads nor
 *                writes them
 * @param notRead source columns the target has no column for, left unread ({@code schema-changes: ignore-new})
 */
public record ColumnMappingPlan(List<ColumnPair> copied, List<ColumnPair> leftOut, List<Column> notRead) {
    public ColumnMappingPlan {
        copied = List.copyOf(requireNonNull(copied, "copied is null"));
        leftOut = List.copyOf(requireNonNull(leftOut, "leftOut is null"));
        notRead = List.copyOf(requireNonNull(notRead, "notRead is null"));
    }

    /** What a person should see in the plan about the columns: those left unread. */
    public List<String> notes() {
        return notRead.stream().map(c -> "source column \"" + c.name() + "\" (" + c.typeName() + ") is not read: "
                + "the target table has no column of that name (schema-changes: ignore-new)").toList();
    }
}
