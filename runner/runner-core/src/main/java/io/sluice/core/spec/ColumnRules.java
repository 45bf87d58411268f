package io.sluice.core.spec;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code columns:} rules and the {@code mask-key} a hash mask is keyed with.
 *
 * @param forPattern the stream is one table of a pattern: a rule whose column a table lacks does not apply to it
 */
public record ColumnRules(List<ColumnRule> rules, Optional<String> maskKey, boolean forPattern) {
    public static final ColumnRules NONE = new ColumnRules(List.of(), Optional.empty(), false);

    public ColumnRules {
        rules = List.copyOf(requireNonNull(rules, "rules is null"));
        requireNonNull(maskKey, "maskKey is null");
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** The rule for source column {@code name}: exact first, then ignoring case. */
    public Optional<ColumnRule> of(String name) {
        Optional<ColumnRule> exact = rules.stream().filter(r -> r.column().equals(name)).findFirst();
        return exact.isPresent() ? exact : rules.stream()
                .filter(r -> r.column().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))).findFirst();
    }

    /** The same rules for one table of a pattern. */
    public ColumnRules forPatternTable() {
        return new ColumnRules(rules, maskKey, true);
    }

    /** The rules as lines of the stream's definition; none when there are none. */
    public List<String> definition() {
        return rules.stream().map(ColumnRule::definition).toList();
    }
}
