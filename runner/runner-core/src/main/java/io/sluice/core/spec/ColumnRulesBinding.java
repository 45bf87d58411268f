package io.sluice.core.spec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code columns:} (a mapping from source column name to its rule) and {@code mask-key}, checked as far
 * as the spec alone allows: known keys, one way to compute a column, one rule per column, no two columns onto one
 * target column, a hash mask keyed by a secret. What needs the source (the column exists, is text for a mask, the
 * expression parses) is checked at plan time ({@code core.plan.ShapedColumns}).
 */
final class ColumnRulesBinding {
    private final ValueReader values;

    ColumnRulesBinding(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    ColumnRules bind(YamlNode.Mapping stream, String streamWhere) {
        Optional<String> maskKey = maskKey(stream, streamWhere);
        Optional<YamlNode.Entry> entry = stream.entry(SpecKeys.COLUMNS);
        if (entry.isEmpty()) {
            return new ColumnRules(List.of(), maskKey, false);
        }
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.get().value(), SpecKeys.COLUMNS, streamWhere);
        if (mapping.isEmpty()) {
            return ColumnRules.NONE;
        }
        List<ColumnRule> rules = new ArrayList<>();
        Map<String, ColumnRule> byFolded = new HashMap<>();
        Map<String, ColumnRule> byTarget = new HashMap<>();
        for (YamlNode.Entry column : mapping.get().entries()) {
            String where = "in column '" + column.key() + "' of " + ValueReader.nested(SpecKeys.COLUMNS, streamWhere)
                    .replaceFirst("^in ", "");
            Optional<ColumnRule> rule = rule(column, where, maskKey, stream);
            if (rule.isEmpty()) {
                continue;
            }
            ColumnRule r = rule.get();
            ColumnRule before = byFolded.putIfAbsent(r.column().toLowerCase(Locale.ROOT), r);
            if (before != null) {
                values.findings().error(SpecCode.SPEC030, column.keyPosition(), "two rules for one column: '"
                        + before.column() + "' (line " + before.position().line() + ") and '" + r.column() + "' "
                        + streamWhere + " name the same source column when case is ignored", "keep one rule");
                continue;
            }
            if (!r.exclude()) {
                ColumnRule onto = byTarget.putIfAbsent(r.targetName().toLowerCase(Locale.ROOT), r);
                if (onto != null) {
                    values.findings().error(SpecCode.SPEC030, column.keyPosition(), "columns '" + onto.column()
                            + "' and '" + r.column() + "' " + streamWhere + " both go to target column '"
                            + r.targetName() + "'", "rename one of them onto another column, or exclude one");
                    continue;
                }
            }
            rules.add(r);
        }
        return new ColumnRules(rules, maskKey, false);
    }

    private Optional<ColumnRule> rule(YamlNode.Entry column, String where, Optional<String> maskKey,
                                      YamlNode.Mapping stream) {
        Optional<YamlNode.Mapping> mapping = values.mapping(column.value(), column.key(), where);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, SpecKeys.COLUMN_RULE_KEYS, where);
        boolean exclude = m.get(SpecKeys.EXCLUDE_COLUMN).flatMap(n -> values.bool(n, SpecKeys.EXCLUDE_COLUMN, where))
                .orElse(false);
        Optional<String> rename = text(m, SpecKeys.RENAME, where);
        Optional<String> type = text(m, SpecKeys.TYPE, where);
        Optional<String> expression = text(m, SpecKeys.EXPRESSION, where);
        Optional<ColumnRule.Mask> mask = m.get(SpecKeys.MASK).flatMap(n -> values.choice(n, SpecKeys.MASK, where,
                SpecKeys.spellings(ColumnRule.Mask.class)).map(s -> SpecKeys.parse(ColumnRule.Mask.class, s)));
        if (m.entries().isEmpty()) {
            values.findings().error(SpecCode.SPEC030, column.keyPosition(), "column '" + column.key() + "' has an "
                    + "empty rule " + where.replaceFirst("^in column '[^']*' of ", "in "), "give it one of: "
                    + String.join(", ", SpecKeys.COLUMN_RULE_KEYS) + ", or remove it");
            return Optional.empty();
        }
        if (exclude && m.entries().size() > 1) {
            values.findings().error(SpecCode.SPEC030, m.get(SpecKeys.EXCLUDE_COLUMN).orElseThrow().position(),
                    "'exclude' " + where + " leaves the column unread, so its other keys do nothing",
                    "keep 'exclude: true' alone, or remove it");
            return Optional.empty();
        }
        if (expression.isPresent() && mask.isPresent()) {
            values.findings().error(SpecCode.SPEC030, m.get(SpecKeys.MASK).orElseThrow().position(), "'expression' "
                    + "and 'mask' " + where + " both say how the column is computed", "keep one (an expression can "
                    + "mask: e.g. left(phone, 3) || '****')");
            return Optional.empty();
        }
        if (expression.isPresent() && expression.get().isBlank()) {
            values.findings().error(SpecCode.SPEC030, m.get(SpecKeys.EXPRESSION).orElseThrow().position(),
                    "'expression' " + where + " is empty", "write SQL the source computes, e.g. lower(email)");
            return Optional.empty();
        }
        if (mask.orElse(null) == ColumnRule.Mask.HASH && maskKey.isEmpty() && stream.get(SpecKeys.MASK_KEY).isEmpty()) {
            values.findings().error(SpecCode.SPEC030, m.get(SpecKeys.MASK).orElseThrow().position(), "'mask: hash' "
                    + where + " needs the stream's 'mask-key': the key that makes the hash unguessable",
                    "add mask-key: ${MASK_KEY} to the stream (a secret from the environment or a file, never a "
                            + "literal)");
        }
        return Optional.of(new ColumnRule(column.key(), exclude, rename, type, expression, mask,
                column.keyPosition()));
    }

    private Optional<String> text(YamlNode.Mapping m, String key, String where) {
        return m.get(key).flatMap(n -> values.string(n, key, where));
    }

    /** {@code mask-key}: a secret, so written as ${VAR} or ${file:PATH}, never as a literal in the spec. */
    private Optional<String> maskKey(YamlNode.Mapping stream, String where) {
        Optional<YamlNode> node = stream.get(SpecKeys.MASK_KEY);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> key = values.string(node.get(), SpecKeys.MASK_KEY, where);
        if (key.isPresent() && node.get() instanceof YamlNode.Scalar s && !s.interpolated()) {
            values.findings().error(SpecCode.SPEC030, s.position(), "'mask-key' " + where + " is written in the "
                    + "spec: anyone who reads it can hash guesses and compare", "write mask-key: ${MASK_KEY} (or "
                    + "${file:PATH}) and keep the key with the run's other secrets");
            return Optional.empty();
        }
        if (key.isPresent() && key.get().length() < 16 && node.get() instanceof YamlNode.Scalar s && !s.unresolved()) {
            values.findings().error(SpecCode.SPEC030, s.position(), "'mask-key' " + where + " is shorter than 16 "
                    + "characters", "use a random key of 32 characters or more, e.g. from openssl rand -hex 32");
            return Optional.empty();
        }
        return key;
    }
}
