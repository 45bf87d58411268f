package io.sluice.core.spec;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The spec's top-level {@code max-parallel-streams} and {@code fail-fast}. */
final class RunSettingsReader {
    private final ValueReader values;

    RunSettingsReader(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    RunSettings read(YamlNode.Mapping root) {
        int parallel = root.entry(SpecKeys.MAX_PARALLEL_STREAMS).flatMap(e -> {
            Optional<Long> n = values.integer(e.value(), SpecKeys.MAX_PARALLEL_STREAMS, "");
            if (n.isPresent() && (n.get() < 1 || n.get() > SpecKeys.MAX_DEGREE)) {
                values.findings().error(SpecCode.SPEC009, e.value().position(), "'max-parallel-streams' must be "
                        + "between 1 and " + SpecKeys.MAX_DEGREE + ", not " + n.get(),
                        "1 runs the streams one after another; n copies n streams at once");
                return Optional.empty();
            }
            return n.map(Long::intValue);
        }).orElse(RunSettings.DEFAULT.maxParallelStreams());
        boolean failFast = root.entry(SpecKeys.FAIL_FAST)
                .flatMap(e -> values.bool(e.value(), SpecKeys.FAIL_FAST, "")).orElse(RunSettings.DEFAULT.failFast());
        return new RunSettings(parallel, failFast, hooks(root, SpecKeys.BEFORE), hooks(root, SpecKeys.AFTER));
    }

    /** A list of {@code { connection: NAME, sql: SQL or [SQL, ...] }}. */
    private java.util.List<RunHook> hooks(YamlNode.Mapping root, String key) {
        java.util.List<RunHook> hooks = new java.util.ArrayList<>();
        root.entry(key).flatMap(e -> values.sequence(e.value(), key, "")).ifPresent(list -> {
            int index = 0;
            for (YamlNode item : list.items()) {
                index++;
                String where = "in '" + key + "' #" + index;
                values.mapping(item, key, "").ifPresent(m -> {
                    values.rejectUnknownKeys(m, java.util.List.of(SpecKeys.CONNECTION, SpecKeys.SQL), where);
                    boolean complete = values.require(m, m.position(), SpecKeys.CONNECTION, where, "name the "
                            + "connection the SQL runs on: one a stream loads into")
                            & values.require(m, m.position(), SpecKeys.SQL, where, "add sql: \"...\" (or a list)");
                    if (!complete) {
                        return;
                    }
                    Optional<String> connection = values.string(m.get(SpecKeys.CONNECTION).orElseThrow(),
                            SpecKeys.CONNECTION, where);
                    Optional<java.util.List<String>> sql = values.stringList(m.get(SpecKeys.SQL).orElseThrow(),
                            SpecKeys.SQL, where);
                    if (connection.isPresent() && sql.isPresent()) {
                        hooks.add(new RunHook(connection.get(), sql.get(), m.position()));
                    }
                });
            }
        });
        return hooks;
    }
}
