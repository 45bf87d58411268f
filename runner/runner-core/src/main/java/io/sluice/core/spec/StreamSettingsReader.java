package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.time.Duration;
import java.util.Optional;

import static io.sluice.core.spec.ValueReader.in;
import static java.util.Objects.requireNonNull;

/** Reads the stream settings keys (degree, distribution, retry, ...) of a stream or of {@code defaults:}. */
final class StreamSettingsReader {
    private final ValueReader values;

    StreamSettingsReader(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    /** Reads the settings keys of {@code mapping}; other keys are the caller's business. */
    StreamSettings read(YamlNode.Mapping mapping, String where) {
        return new StreamSettings(
                mapping.entry(SpecKeys.DISTRIBUTION).flatMap(e -> distribution(e, where)),
                mapping.get(SpecKeys.DEGREE).flatMap(n -> degree(n, where)),
                mapping.get(SpecKeys.BATCH_SIZE).flatMap(n -> rowsPerPartition(n, where)),
                mapping.get(SpecKeys.LOAD_MODE).flatMap(n -> choice(n, SpecKeys.LOAD_MODE, where, LoadMode.class)
                        .map(v -> new StreamSettings.Located<>(v, n.position()))),
                mapping.get(SpecKeys.COLUMN_MAPPING)
                        .flatMap(n -> choice(n, SpecKeys.COLUMN_MAPPING, where, ColumnMapping.class)),
                mapping.get(SpecKeys.CONSISTENCY)
                        .flatMap(n -> choice(n, SpecKeys.CONSISTENCY, where, Consistency.class)),
                mapping.get(SpecKeys.VERIFY).flatMap(n -> choice(n, SpecKeys.VERIFY, where, VerifyMode.class)),
                mapping.entry(SpecKeys.RETRY).map(e -> retry(e, where)).orElse(StreamSettings.RetrySettings.NONE),
                mapping.get(SpecKeys.LOCK_TIMEOUT).flatMap(n -> values.duration(n, SpecKeys.LOCK_TIMEOUT, where)
                        .map(d -> new StreamSettings.Located<>(d, n.position()))),
                load(mapping, where),
                mapping.entry(SpecKeys.REJECTS).flatMap(e -> rejects(e, where)),
                mapping.get(SpecKeys.NUL_BYTES).flatMap(n -> choice(n, SpecKeys.NUL_BYTES, where,
                        BadRows.NulBytes.class).map(v -> new StreamSettings.Located<>(v, n.position()))));
    }

    /** {@code rejects: { table, max-rows, max-ratio }}; a threshold out of range is SPEC033 at its value. */
    private Optional<RejectsSpec> rejects(YamlNode.Entry entry, String where) {
        String inside = ValueReader.nested(SpecKeys.REJECTS, where);
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.value(), SpecKeys.REJECTS, where);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, SpecKeys.REJECTS_KEYS, inside);
        boolean valid = values.require(m, entry.keyPosition(), SpecKeys.TABLE, inside,
                "add 'table:', e.g. rejects: { table: public.orders_rejects, max-rows: 1000 }");
        Optional<String> table = m.get(SpecKeys.TABLE).flatMap(n -> values.string(n, SpecKeys.TABLE, inside));
        java.util.OptionalLong maxRows = java.util.OptionalLong.empty();
        if (m.get(SpecKeys.MAX_ROWS).isPresent()) {
            YamlNode n = m.get(SpecKeys.MAX_ROWS).orElseThrow();
            Optional<Long> rows = values.integer(n, SpecKeys.MAX_ROWS, inside);
            if (rows.isPresent() && rows.get() < 1) {
                values.findings().error(SpecCode.SPEC033, n.position(), "'" + SpecKeys.MAX_ROWS + "'" + in(inside)
                        + " must be at least 1, not " + rows.get(), "use the most rows the stream may set aside in a "
                        + "run, e.g. 1000; to set none aside, remove 'rejects'");
                valid = false;
            } else if (rows.isPresent()) {
                maxRows = java.util.OptionalLong.of(rows.get());
            } else {
                valid = false;
            }
        }
        java.util.OptionalDouble maxRatio = java.util.OptionalDouble.empty();
        if (m.get(SpecKeys.MAX_RATIO).isPresent()) {
            YamlNode n = m.get(SpecKeys.MAX_RATIO).orElseThrow();
            if (n instanceof YamlNode.Scalar s && (s.value() instanceof Double || s.value() instanceof Long)
                    && ((Number) s.value()).doubleValue() > 0 && ((Number) s.value()).doubleValue() <= 1) {
                maxRatio = java.util.OptionalDouble.of(((Number) s.value()).doubleValue());
            } else {
                values.findings().error(SpecCode.SPEC033, n.position(), "'" + SpecKeys.MAX_RATIO + "'" + in(inside)
                        + " must be a number above 0 and at most 1", "e.g. 0.001: at most one row in a thousand");
                valid = false;
            }
        }
        if (!valid || table.isEmpty()) {
            return Optional.empty();
        }
        if (table.get().isBlank()) {
            values.findings().error(SpecCode.SPEC033, m.get(SpecKeys.TABLE).orElseThrow().position(),
                    "'table'" + in(inside) + " is empty", "name the rejects table, e.g. public.orders_rejects");
            return Optional.empty();
        }
        return Optional.of(new RejectsSpec(table.get(), maxRows, maxRatio, entry.keyPosition()));
    }

    private StreamSettings.LoadSettings load(YamlNode.Mapping mapping, String where) {
        return new StreamSettings.LoadSettings(
                mapping.get(SpecKeys.MERGE_KEY).flatMap(n -> values.stringList(n, SpecKeys.MERGE_KEY, where)
                        .map(v -> new StreamSettings.Located<>(v, n.position()))),
                mapping.get(SpecKeys.ON_DUPLICATE).flatMap(n -> choice(n, SpecKeys.ON_DUPLICATE, where,
                        LoadRequest.OnDuplicate.class).map(v -> new StreamSettings.Located<>(v, n.position()))),
                flag(mapping, SpecKeys.DELETE_MISSING, where),
                flag(mapping, SpecKeys.KEEP_PREVIOUS, where),
                mapping.get(SpecKeys.INDEXES).flatMap(n -> choice(n, SpecKeys.INDEXES, where,
                        LoadRequest.Indexes.class).map(v -> new StreamSettings.Located<>(v, n.position()))),
                flag(mapping, SpecKeys.RESET_SEQUENCES, where),
                mapping.get(SpecKeys.SCHEMA_CHANGES).flatMap(n -> choice(n, SpecKeys.SCHEMA_CHANGES, where,
                        SchemaChanges.class).map(v -> new StreamSettings.Located<>(v, n.position()))));
    }

    private Optional<StreamSettings.Located<Boolean>> flag(YamlNode.Mapping mapping, String key, String where) {
        return mapping.get(key).flatMap(n -> values.bool(n, key, where)
                .map(v -> new StreamSettings.Located<>(v, n.position())));
    }

    private <E extends Enum<E>> Optional<E> choice(YamlNode node, String key, String where, Class<E> type) {
        return values.choice(node, key, where, SpecKeys.spellings(type)).map(s -> SpecKeys.parse(type, s));
    }

    private Optional<StreamSettings.Located<Integer>> degree(YamlNode node, String where) {
        return values.integer(node, SpecKeys.DEGREE, where).flatMap(d -> {
            if (d == 0) {
                values.findings().error(SpecCode.SPEC009, node.position(), "'degree'" + in(where) + " must not be 0",
                        "use n > 0 for n parallel partitions, or n < 0 for (available cores / |n|)");
                return Optional.empty();
            }
            if (Math.abs(d) > SpecKeys.MAX_DEGREE) {
                values.findings().error(SpecCode.SPEC009, node.position(), "'degree'" + in(where)
                                + " must be between -" + SpecKeys.MAX_DEGREE + " and " + SpecKeys.MAX_DEGREE,
                        "use a smaller degree; each unit is a connection pair");
                return Optional.empty();
            }
            return Optional.of(new StreamSettings.Located<>(d.intValue(), node.position()));
        });
    }

    private Optional<StreamSettings.Located<Long>> rowsPerPartition(YamlNode node, String where) {
        return values.integer(node, SpecKeys.BATCH_SIZE, where).flatMap(n -> {
            if (n <= 0) {
                values.findings().error(SpecCode.SPEC009, node.position(), "'batch-size'" + in(where)
                        + " must be greater than 0", "use a number of rows, e.g. "
                        + SpecKeys.DEFAULT_ROWS_PER_PARTITION);
                return Optional.empty();
            }
            return Optional.of(new StreamSettings.Located<>(n, node.position()));
        });
    }

    private Optional<StreamSettings.Located<StreamSettings.DistributionSettings>> distribution(
            YamlNode.Entry entry, String where) {
        String inside = ValueReader.nested(SpecKeys.DISTRIBUTION, where);
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.value(), SpecKeys.DISTRIBUTION, where);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, SpecKeys.DISTRIBUTION_KEYS, inside);
        Optional<StreamSettings.Located<String>> key = located(m, SpecKeys.KEY, inside);
        Optional<StreamSettings.Located<String>> valuesQuery = located(m, SpecKeys.VALUES_QUERY, inside);
        if (!values.require(m, entry.keyPosition(), SpecKeys.METHOD, inside,
                "add 'method:' with one of: " + String.join(", ", SpecKeys.spellings(DistributionMethod.class)))) {
            return Optional.empty();
        }
        YamlNode methodNode = m.get(SpecKeys.METHOD).orElseThrow();
        return choice(methodNode, SpecKeys.METHOD, inside, DistributionMethod.class)
                .map(method -> new StreamSettings.Located<>(new StreamSettings.DistributionSettings(method,
                        methodNode.position(), key, valuesQuery), entry.keyPosition()));
    }

    private Optional<StreamSettings.Located<String>> located(YamlNode.Mapping m, String key, String where) {
        return m.get(key).flatMap(n -> values.string(n, key, where)
                .map(s -> new StreamSettings.Located<>(s, n.position())));
    }

    private StreamSettings.RetrySettings retry(YamlNode.Entry entry, String where) {
        String inside = ValueReader.nested(SpecKeys.RETRY, where);
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.value(), SpecKeys.RETRY, where);
        if (mapping.isEmpty()) {
            return StreamSettings.RetrySettings.NONE;
        }
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, SpecKeys.RETRY_KEYS, inside);
        Optional<Integer> attempts = m.get(SpecKeys.MAX_ATTEMPTS).flatMap(n ->
                values.integer(n, SpecKeys.MAX_ATTEMPTS, inside).flatMap(a -> {
                    if (a < 1 || a > SpecKeys.MAX_ATTEMPTS_LIMIT) {
                        values.findings().error(SpecCode.SPEC009, n.position(), "'max-attempts'" + in(inside)
                                + " must be between 1 and " + SpecKeys.MAX_ATTEMPTS_LIMIT,
                                "use 1 for no retries, or e.g. 5");
                        return Optional.empty();
                    }
                    return Optional.of(a.intValue());
                }));
        return new StreamSettings.RetrySettings(attempts, backoff(m, SpecKeys.INITIAL_BACKOFF, inside),
                backoff(m, SpecKeys.MAX_BACKOFF, inside));
    }

    private Optional<StreamSettings.Located<Duration>> backoff(YamlNode.Mapping m, String key, String where) {
        return m.get(key).flatMap(n -> values.duration(n, key, where)
                .map(d -> new StreamSettings.Located<>(d, n.position())));
    }

    /** Position helper for callers that check merged settings. */
    static Position positionOf(Optional<? extends StreamSettings.Located<?>> located, Position fallback) {
        return located.<Position>map(StreamSettings.Located::position).orElse(fallback);
    }
}
