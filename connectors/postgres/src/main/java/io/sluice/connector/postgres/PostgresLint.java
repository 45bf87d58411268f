package io.sluice.connector.postgres;

import io.sluice.spi.DistributionMethod;
import io.sluice.spi.Options;
import io.sluice.spi.Problem;
import io.sluice.spi.Role;
import io.sluice.spi.StreamShape;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Offline checks of a stream side handled by the postgres connector; nothing connects. */
final class PostgresLint {
    static final String BAD_TABLE_NAME = "PG101";
    static final String TABLE_XOR_QUERY = "PG102";
    static final String CTID_NEEDS_TABLE = "PG103";
    static final String TARGET_NEEDS_TABLE = "PG104";
    static final String KEY_MISSING = "PG105";
    static final String VALUES_QUERY_UNUSED = "PG106";
    static final String TABLE_NAME_FIX = "write schema.table; quote names with capitals, spaces or dots: "
            + "\"My Schema\".\"My.Table\" (a quote inside a quoted name is doubled)";

    private PostgresLint() {
    }

    static List<Problem> lint(StreamShape stream) {
        List<Problem> problems = new ArrayList<>();
        Options options = stream.options();
        Optional<String> table = options.find(PostgresOptions.TABLE);
        Optional<String> query = options.find(PostgresOptions.QUERY);
        // An empty value comes from an environment variable unknown at lint time: nothing to check yet.
        table.filter(t -> !t.isEmpty()).ifPresent(t -> {
            try {
                QualifiedName.parse(t);
            } catch (IllegalArgumentException e) {
                problems.add(Problem.error(BAD_TABLE_NAME, "table", e.getMessage(), TABLE_NAME_FIX));
            }
        });
        if (stream.role() == Role.TARGET) {
            if (table.isEmpty()) {
                problems.add(Problem.error(TARGET_NEEDS_TABLE, "table", "a postgres target needs a table",
                        "add table: schema.table"));
            }
            return problems;
        }
        if (table.isPresent() && query.isPresent()) {
            problems.add(Problem.error(TABLE_XOR_QUERY, "query", "a postgres source takes table or query, not both",
                    "keep either table: or query:"));
        } else if (table.isEmpty() && query.isEmpty()) {
            problems.add(Problem.error(TABLE_XOR_QUERY, "table", "a postgres source needs table or query",
                    "add table: schema.table, or query: SELECT ..."));
        }
        DistributionMethod method = stream.distribution().method();
        if (method == DistributionMethod.CTID && query.isPresent()) {
            problems.add(Problem.error(CTID_NEEDS_TABLE, "query", "distribution ctid splits a table's heap and "
                    + "cannot split a query", "read a table, or use range, ntile, modulo or data-driven with a key"));
        }
        if (method.needsKey() && stream.distribution().key().filter(k -> !k.isBlank()).isEmpty()) {
            problems.add(Problem.error(KEY_MISSING, "distribution", "distribution " + method.specName()
                    + " needs a key", "add key: <column or SQL expression>"));
        }
        if (method != DistributionMethod.DATA_DRIVEN && stream.distribution().valuesQuery().isPresent()) {
            problems.add(Problem.warning(VALUES_QUERY_UNUSED, "distribution", "values-query is used only by "
                    + "distribution data-driven", "remove values-query or use data-driven"));
        }
        return problems;
    }
}
