package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One entry of the spec's top-level {@code before:} or {@code after:}: SQL run once per run on a connection that some
 * stream loads into (its ledger keeps the hook's mark), before the first stream starts or once every stream's load
 * is finished.
 */
public record RunHook(String connection, List<String> statements, Position position) {
    public RunHook {
        requireNonNull(connection, "connection is null");
        statements = List.copyOf(requireNonNull(statements, "statements is null"));
        requireNonNull(position, "position is null");
    }
}
