package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * One entry of a stream's {@code checks:}: an assertion on what was loaded, evaluated before the data goes live.
 *
 * @param columns           for {@code not-null} and {@code unique}: the target columns
 * @param sql               for a custom check: a query returning one number that must be 0
 * @param minRows           {@code rows: { min: N }}
 * @param maxRows           {@code rows: { max: N }}
 * @param minRatioOfLastRun {@code rows: { min-ratio-of-last-run: R }}: at least R times the rows the table held when
 *                          the stream's last done run checked it
 */
public record CheckSpec(String name, Kind kind, List<String> columns, Optional<String> sql, OptionalLong minRows,
                        OptionalLong maxRows, Optional<Double> minRatioOfLastRun, Position position) {
    public enum Kind { ROWS, NOT_NULL, UNIQUE, SQL }

    public CheckSpec {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(sql, "sql is null");
        requireNonNull(minRows, "minRows is null");
        requireNonNull(maxRows, "maxRows is null");
        requireNonNull(minRatioOfLastRun, "minRatioOfLastRun is null");
        requireNonNull(position, "position is null");
    }
}
