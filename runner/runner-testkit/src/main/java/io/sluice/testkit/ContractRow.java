package io.sluice.testkit;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A row of the target contract suites' table: {@code id} (64-bit integer) and {@code label} (text, empty for SQL
 * NULL). Subclasses return the rows their table holds in these terms.
 */
public record ContractRow(long id, Optional<String> label) {
    public ContractRow {
        requireNonNull(label, "label is null");
    }
}
