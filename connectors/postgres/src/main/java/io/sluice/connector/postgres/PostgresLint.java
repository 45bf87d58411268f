package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.TableNames;

import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.toolkit.SqlText;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG101;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG102;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG108;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG109;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG110;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG111;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG107;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG103;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG104;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG208;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG405;

/** Offline checks of a postgres connection and of the stream sides it handles; nothing connects. */
public final class PostgresLint {
    // PG105 (key missing) and PG106 (values-query unused) are retired: the core's SPEC017 owns those rules.
    static final String TABLE_NAME_FIX = "write schema.table; quote names with capitals, spaces or dots: "
            + "\"My Schema\".\"My.Table\" (a quote inside a quoted name is doubled)";

    private PostgresLint() {
    }

    static List<Problem> lintStream(StreamShape stream) {
        List<Problem> problems = new ArrayList<>();
        Options options = stream.options();
        Optional<String> table = options.find(PostgresOptions.TABLE);
        Optional<String> query = options.find(PostgresOptions.QUERY);
        // An empty value comes from an environment variable unknown at lint time: nothing to check yet.
        table.filter(t -> !t.isEmpty()).ifPresent(t -> {
            try {
                if (stream.role() == Role.SOURCE && TableNames.isPattern(t)) {
                    TableNames.pattern(t);
                } else if (stream.role() == Role.TARGET && TableNames.isTemplate(t)) {
                    TableNames.fill(t, java.util.Map.of("schema", "s", "table", "t"));
                } else {
                    QualifiedName.parse(t);
                }
            } catch (IllegalArgumentException e) {
                problems.add(Problem.error(PG101, "table", e.getMessage(), TABLE_NAME_FIX));
            }
        });
        boolean pattern = stream.role() == Role.SOURCE && table.filter(TableNames::isPattern).isPresent();
        if (options.isSet(PostgresOptions.EXCLUDE) && !pattern) {
            problems.add(Problem.error(PG107, "exclude", "exclude narrows a table pattern, and the table is not one",
                    "write a pattern, e.g. table: \"sales.*\", or remove exclude"));
        }
        for (String excluded : options.find(PostgresOptions.EXCLUDE).orElse(List.of())) {
            try {
                TableNames.pattern(excluded);
            } catch (IllegalArgumentException e) {
                problems.add(Problem.error(PG101, "exclude", e.getMessage(), TABLE_NAME_FIX));
            }
        }
        if (stream.role() == Role.TARGET) {
            if (table.isEmpty()) {
                problems.add(Problem.error(PG104, "table", "a postgres target needs a table",
                        "add table: schema.table"));
            }
            return problems;
        }
        if (table.isPresent() && query.isPresent()) {
            problems.add(Problem.error(PG102, "query", "a postgres source takes table or query, not both",
                    "keep either table: or query:"));
        } else if (table.isEmpty() && query.isEmpty()) {
            problems.add(Problem.error(PG102, "table", "a postgres source needs table or query",
                    "add table: schema.table, or query: SELECT ..."));
        }
        if (options.isSet(PostgresOptions.WHERE) && query.isPresent()) {
            problems.add(Problem.error(PG108, "where", "where filters a table source, and this source is a query",
                    "put the condition in the query's own WHERE, or read a table"));
        }
        options.find(PostgresOptions.WHERE).flatMap(SqlText::notOneExpression).ifPresent(why ->
                problems.add(Problem.error(PG110, "where", "where: must be one condition, and this one escapes the "
                        + "parentheses it is put in: " + why, "write one boolean expression (balanced parentheses, "
                        + "no ';', no comment), e.g. where: \"id > 500000 OR id < 1000\"")));
        if (options.isSet(PostgresOptions.WHERE) && options.isSet(PostgresOptions.CHANGES)) {
            // The feed carries every change of the table, and the apply has no way yet to evaluate the filter (the
            // source's SQL, over columns the target may not carry, values a change may leave out): refused, never
            // applied unfiltered.
            problems.add(Problem.error(PG111, "where", "where: filters the copy, and changes: would apply every "
                    + "change of the table after it (rows outside the filter would land in the target)",
                    "follow the whole table (remove where:), or copy the filtered rows without changes:"));
        }
        options.find(PostgresOptions.CHANGES).ifPresent(changes -> {
            if (query.isPresent()) {
                problems.add(Problem.error(PG109, "changes", "changes: follows a table's changes, and this source "
                        + "is a query", "read a table (a pattern for many), or remove changes:"));
            }
            changes.find(PostgresOptions.SLOT).filter(slot -> !slot.isEmpty()
                    && !slot.matches("[a-z0-9_]{1,63}")).ifPresent(slot -> problems.add(Problem.error(PG109,
                    "changes", "slot '" + slot + "' is not a name PostgreSQL takes for a replication slot",
                    "use lower case letters, digits and _ only, at most 63 of them, e.g. "
                            + slot.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_"))));
        });
        DistributionMethod method = stream.distribution().method();
        if (method == DistributionMethod.CTID && query.isPresent()) {
            problems.add(Problem.error(PG103, "query", "distribution ctid splits a table's heap and "
                    + "cannot split a query", "read a table, or use range, ntile, modulo or data-driven with a key"));
        }
        // Whether key and values-query fit the method is the core's check (SPEC017), from the spec's keys.
        return problems;
    }

    /**
     * A connection is a server at {@code url} or an {@code embedded} one: the rules (and codes) that
     * {@link PostgresConnectorFactory#create} applies, found before anything connects.
     */
    static List<Problem> lintConnection(Options options) {
        boolean embedded = options.isSet(PostgresOptions.EMBEDDED);
        boolean url = options.isSet(PostgresOptions.URL);
        List<Problem> problems = new ArrayList<>();
        if (embedded && url) {
            problems.add(Problem.error(PG208, "embedded", "a postgres "
                    + "connection takes url or embedded, not both", "keep url: to reach a server, or embedded: "
                    + "<database name> for a local one that Sluice starts"));
        } else if (!embedded && !url) {
            problems.add(Problem.error(PG208, "url", "a postgres connection "
                    + "needs url or embedded", "give url: jdbc:postgresql://host:port/db, or embedded: <database "
                    + "name>"));
        }
        if (!embedded && options.isSet(PostgresOptions.INIT_SCRIPT)) {
            problems.add(Problem.error(PG405, "init-script",
                    "init-script applies only to an embedded database", "remove init-script, or use embedded: "
                            + "<database name>"));
        }
        return problems;
    }
}
