package io.sluice.core.spec;

import java.util.List;

import static java.util.Objects.requireNonNull;
import io.sluice.spi.data.TablePlaceholders;

/**
 * A stream's {@code before:} and {@code after:}: SQL run on its target, before the load prepares the table and once the
 * stream is done (and verified), each once per run. {@code {table}} in a statement is the target table, quoted;
 * {@code {table_literal}} the same as a string literal.
 */
public record StreamHooks(List<String> before, List<String> after) {
    public static final StreamHooks NONE = new StreamHooks(List.of(), List.of());

    /** The placeholder a statement names the stream's target table with. */
    public static final String TABLE = TablePlaceholders.TABLE;

    public StreamHooks {
        before = List.copyOf(requireNonNull(before, "before is null"));
        after = List.copyOf(requireNonNull(after, "after is null"));
    }

    public boolean isEmpty() {
        return before.isEmpty() && after.isEmpty();
    }

    /** {@code statements} with their placeholders ({@link io.sluice.spi.data.TablePlaceholders}) for {@code quotedTable}. */
    public static List<String> forTable(List<String> statements, String quotedTable) {
        return statements.stream().map(s -> TablePlaceholders.expand(s, quotedTable)).toList();
    }
}
