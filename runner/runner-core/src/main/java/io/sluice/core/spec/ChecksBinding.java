package io.sluice.core.spec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code checks:}: a list of mappings, each with one kind ({@code rows}, {@code not-null}, {@code unique},
 * {@code sql}) and a name (a custom {@code sql} check must have one; the others default to their kind), names unique
 * in the stream. Whether the named columns exist is the plan's to say (it knows the target table).
 */
final class ChecksBinding {
    private static final List<String> KINDS = List.of(SpecKeys.ROWS, SpecKeys.NOT_NULL, SpecKeys.UNIQUE, SpecKeys.SQL);

    private final ValueReader values;

    ChecksBinding(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    List<CheckSpec> bind(YamlNode.Mapping stream, String streamWhere) {
        Optional<YamlNode.Entry> entry = stream.entry(SpecKeys.CHECKS);
        if (entry.isEmpty()) {
            return List.of();
        }
        Optional<YamlNode.Sequence> list = values.sequence(entry.get().value(), SpecKeys.CHECKS, streamWhere);
        if (list.isEmpty()) {
            return List.of();
        }
        List<CheckSpec> checks = new ArrayList<>();
        Map<String, CheckSpec> byName = new HashMap<>();
        int index = 0;
        for (YamlNode item : list.get().items()) {
            index++;
            String where = "in check #" + index + " of " + streamWhere.replaceFirst("^in ", "");
            Optional<CheckSpec> check = values.mapping(item, "checks[" + index + "]", streamWhere)
                    .flatMap(m -> check(m, where));
            if (check.isEmpty()) {
                continue;
            }
            CheckSpec before = byName.putIfAbsent(check.get().name(), check.get());
            if (before != null) {
                values.findings().error(SpecCode.SPEC031, check.get().position(), "two checks " + streamWhere
                        + " are named '" + check.get().name() + "' (the first at line " + before.position().line()
                        + ")", "give each check its own name: name: ...");
                continue;
            }
            checks.add(check.get());
        }
        return checks;
    }

    private Optional<CheckSpec> check(YamlNode.Mapping m, String where) {
        List<String> allowed = new ArrayList<>(KINDS);
        allowed.add(SpecKeys.NAME_KEY);
        values.rejectUnknownKeys(m, allowed, where);
        List<String> kinds = KINDS.stream().filter(k -> m.get(k).isPresent()).toList();
        if (kinds.size() != 1) {
            values.findings().error(SpecCode.SPEC031, m.position(), where.replaceFirst("^in ", "") + " needs exactly "
                    + "one of " + String.join(", ", KINDS) + (kinds.isEmpty() ? "" : "; it has "
                    + String.join(" and ", kinds)), kinds.isEmpty() ? "add one, e.g. not-null: [id]"
                    : "split it into one check per kind");
            return Optional.empty();
        }
        String kind = kinds.getFirst();
        Optional<String> name = m.get(SpecKeys.NAME_KEY).flatMap(n -> values.string(n, SpecKeys.NAME_KEY, where));
        YamlNode value = m.get(kind).orElseThrow();
        switch (kind) {
            case SpecKeys.SQL -> {
                if (name.isEmpty()) {
                    values.findings().error(SpecCode.SPEC031, value.position(), where.replaceFirst("^in ", "")
                            + " is a custom sql check without a name", "add name: ..., which the failure message "
                            + "shows");
                    return Optional.empty();
                }
                values.string(value, SpecKeys.SQL, where).ifPresent(sql -> SpecBinder.refuseTableInQuotes(
                        values.findings(), sql, value.position(), where.replaceFirst("^in ", "")));
                return values.string(value, SpecKeys.SQL, where).map(sql -> new CheckSpec(name.get(),
                        CheckSpec.Kind.SQL, List.of(), Optional.of(sql), OptionalLong.empty(), OptionalLong.empty(),
                        Optional.empty(), m.position()));
            }
            case SpecKeys.NOT_NULL, SpecKeys.UNIQUE -> {
                return values.stringList(value, kind, where).map(columns -> new CheckSpec(name.orElse(kind),
                        kind.equals(SpecKeys.UNIQUE) ? CheckSpec.Kind.UNIQUE : CheckSpec.Kind.NOT_NULL, columns,
                        Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty(), m.position()));
            }
            default -> {
                return rows(value, name.orElse(SpecKeys.ROWS), where, m);
            }
        }
    }

    private Optional<CheckSpec> rows(YamlNode value, String name, String where, YamlNode.Mapping check) {
        String inside = ValueReader.nested(SpecKeys.ROWS, where);
        Optional<YamlNode.Mapping> mapping = values.mapping(value, SpecKeys.ROWS, where);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, List.of(SpecKeys.MIN, SpecKeys.MAX, SpecKeys.MIN_RATIO_OF_LAST_RUN), inside);
        OptionalLong min = m.get(SpecKeys.MIN).flatMap(n -> values.integer(n, SpecKeys.MIN, inside))
                .map(OptionalLong::of).orElse(OptionalLong.empty());
        OptionalLong max = m.get(SpecKeys.MAX).flatMap(n -> values.integer(n, SpecKeys.MAX, inside))
                .map(OptionalLong::of).orElse(OptionalLong.empty());
        Optional<Double> ratio = m.get(SpecKeys.MIN_RATIO_OF_LAST_RUN).flatMap(n -> ratio(n, inside));
        if (m.entries().isEmpty()) {
            values.findings().error(SpecCode.SPEC031, value.position(), "'rows' " + where + " sets no bound",
                    "add min, max or min-ratio-of-last-run, e.g. rows: { min-ratio-of-last-run: 0.9 }");
            return Optional.empty();
        }
        if (min.isPresent() && max.isPresent() && min.getAsLong() > max.getAsLong()) {
            values.findings().error(SpecCode.SPEC031, value.position(), "'rows' " + where + " has min "
                    + min.getAsLong() + " above max " + max.getAsLong(), "swap them");
            return Optional.empty();
        }
        return Optional.of(new CheckSpec(name, CheckSpec.Kind.ROWS, List.of(), Optional.empty(), min, max, ratio,
                check.position()));
    }

    private Optional<Double> ratio(YamlNode node, String where) {
        if (node instanceof YamlNode.Scalar s && (s.value() instanceof Double || s.value() instanceof Long)) {
            double r = ((Number) s.value()).doubleValue();
            if (r > 0 && r <= 1) {
                return Optional.of(r);
            }
        }
        values.findings().error(SpecCode.SPEC031, node.position(), "'" + SpecKeys.MIN_RATIO_OF_LAST_RUN + "' "
                + where + " must be a number above 0 and at most 1", "e.g. 0.9: at least 90% of the last done run's "
                + "rows");
        return Optional.empty();
    }
}
