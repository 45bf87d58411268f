package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.CheckSpec;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.LoadCheck;
import io.sluice.spi.write.Target;
import io.sluice.spi.write.TargetTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A stream's {@code checks:} as the queries its target evaluates ({@link LoadCheck}): {@code not-null} and
 * {@code unique} over the named columns, a custom query as written, {@code rows} as the table's count with its bounds,
 * {@code min-ratio-of-last-run} resolved against the count the stream's last done run recorded.
 */
public final class StreamChecks {
    /** The value a check found in the stream's last done run, from the target's ledger. */
    @FunctionalInterface
    public interface History {
        History NONE = (target, check) -> Optional.empty();

        Optional<Long> lastValue(Target target, String check);
    }

    private StreamChecks() {
    }

    /** The checks for {@code target}, as queries over {@link LoadCheck#TABLE}. */
    static List<LoadCheck> of(List<CheckSpec> specs, Target target, History history) {
        List<LoadCheck> checks = new ArrayList<>();
        for (CheckSpec spec : specs) {
            String columns = spec.columns().stream().map(StreamChecks::quoted).collect(Collectors.joining(", "));
            checks.add(switch (spec.kind()) {
                case SQL -> new LoadCheck(spec.name(), spec.sql().orElseThrow(), 0, 0, "0");
                case NOT_NULL -> new LoadCheck(spec.name(), "SELECT count(*) FROM " + LoadCheck.TABLE + " WHERE "
                        + spec.columns().stream().map(c -> quoted(c) + " IS NULL").collect(Collectors.joining(" OR ")),
                        0, 0, "0 rows with NULL in " + String.join(", ", spec.columns()));
                case UNIQUE -> new LoadCheck(spec.name(), "SELECT count(*) FROM (SELECT 1 FROM " + LoadCheck.TABLE
                        + " GROUP BY " + columns + " HAVING count(*) > 1) AS duplicated", 0, 0,
                        "0 values of (" + String.join(", ", spec.columns()) + ") on more than one row");
                case ROWS -> rows(spec, target, history);
            });
        }
        return checks;
    }

    private static LoadCheck rows(CheckSpec spec, Target target, History history) {
        long min = spec.minRows().orElse(0);
        List<String> said = new ArrayList<>();
        spec.minRows().ifPresent(m -> said.add("at least " + m));
        if (spec.minRatioOfLastRun().isPresent()) {
            double ratio = spec.minRatioOfLastRun().get();
            Optional<Long> last = history.lastValue(target, spec.name());
            if (last.isPresent()) {
                long fromLast = (long) Math.ceil(ratio * last.get());
                min = Math.max(min, fromLast);
                said.add("at least " + fromLast + " (" + ratio + " x " + last.get() + ", the last done run's)");
            } else {
                said.add("any number (no done run to compare with yet)");
            }
        }
        long max = spec.maxRows().orElse(Long.MAX_VALUE);
        spec.maxRows().ifPresent(m -> said.add("at most " + m));
        return new LoadCheck(spec.name(), "SELECT count(*) FROM " + LoadCheck.TABLE, min, Math.max(min, max),
                String.join(" and ", said) + " rows");
    }

    /** The columns {@code not-null} and {@code unique} checks name must be columns of {@code table}. */
    static void requireColumns(String stream, List<CheckSpec> specs, TargetTable table) {
        for (CheckSpec spec : specs) {
            requireColumns(stream, spec, table);
        }
    }

    private static void requireColumns(String stream, CheckSpec spec, TargetTable table) {
        List<String> missing = spec.columns().stream().filter(c -> table.columns().stream()
                .noneMatch(t -> t.name().equals(c))).toList();
        if (!missing.isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.CHECK001, "stream '" + stream + "': check '"
                    + spec.name() + "' names column(s) " + String.join(", ", missing) + ", which " + table
                    .qualifiedName() + " does not have (its columns: " + table.columns().stream().map(Column::name)
                    .collect(Collectors.joining(", ")) + ")", "name target columns as the table spells them");
        }
    }

    private static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
