package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One entry of a stream's {@code columns:}: what happens to the source column {@code column} on its way to the
 * target. Applied by the source, so the values on the wire are already shaped.
 *
 * @param exclude    the column is not read
 * @param rename     the target column it goes to, when not the one of its own name
 * @param type       the target type of a column the load creates or adds ({@code create: if-missing},
 *                   {@code schema-changes})
 * @param expression SQL the source evaluates instead of reading the column, e.g. {@code lower(email)}
 * @param mask       personal data replaced on the source
 */
public record ColumnRule(String column, boolean exclude, Optional<String> rename, Optional<String> type,
                         Optional<String> expression, Optional<Mask> mask, Position position) {
    /** {@code mask:} values. */
    public enum Mask {
        /** A keyed hash (hex text): the same value gives the same hash on every run, the key from a secret. */
        HASH,
        /** Each character replaced by {@code *}: the length stays, the text goes. */
        REDACT,
        /** NULL, of the column's type. */
        NULL
    }

    public ColumnRule {
        requireNonNull(column, "column is null");
        requireNonNull(rename, "rename is null");
        requireNonNull(type, "type is null");
        requireNonNull(expression, "expression is null");
        requireNonNull(mask, "mask is null");
        requireNonNull(position, "position is null");
    }

    /** The target column's name: the rename, or the source column's own. */
    public String targetName() {
        return rename.orElse(column);
    }

    /** The rule as one line of the stream's definition (what a resume compares). */
    String definition() {
        StringBuilder line = new StringBuilder("columns." + column + ":");
        if (exclude) {
            line.append(" exclude");
        }
        rename.ifPresent(r -> line.append(" rename ").append(r));
        type.ifPresent(t -> line.append(" type ").append(t));
        expression.ifPresent(e -> line.append(" expression ").append(e));
        mask.ifPresent(m -> line.append(" mask ").append(m.name().toLowerCase(java.util.Locale.ROOT)));
        return line.toString();
    }
}
