package io.sluice.core.spec;

import io.sluice.core.diag.Position;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Reads typed values out of {@link YamlNode}s and reports what does not fit, with the key and where it sits
 * ("in stream 'orders'"). An empty result means "absent or already reported": callers fall back to defaults and
 * carry on, so one pass finds every problem.
 */
final class ValueReader {
    private static final Pattern WHOLE_NUMBER = Pattern.compile("-?[0-9]+");
    private static final Pattern DURATION = Pattern.compile("([0-9]+)(ms|s|m|h)");

    private final Findings findings;

    ValueReader(Findings findings) {
        this.findings = requireNonNull(findings, "findings is null");
    }

    Findings findings() {
        return findings;
    }

    /** " in stream 'orders'" or "" at the top level. */
    static String in(String where) {
        return where.isEmpty() ? "" : " " + where;
    }

    /** "in 'retry' of stream 'orders'": where a nested mapping's keys sit. */
    static String nested(String key, String where) {
        return where.isEmpty() ? "in '" + key + "'" : "in '" + key + "' of " + where.replaceFirst("^in ", "");
    }

    /** Reports keys outside {@code allowed}, each with a did-you-mean. */
    void rejectUnknownKeys(YamlNode.Mapping mapping, Collection<String> allowed, String where) {
        for (YamlNode.Entry e : mapping.entries()) {
            if (!allowed.contains(e.key())) {
                findings.error(SpecCode.SPEC012, e.keyPosition(), "unknown key '" + e.key() + "'" + in(where),
                        Suggestions.fixFor(e.key(), allowed.stream().sorted().toList(), "allowed keys"));
            }
        }
    }

    /** Reports a missing required key at {@code anchor} (the key that owns the mapping, when there is one). */
    boolean require(YamlNode.Mapping mapping, Position anchor, String key, String where, String fix) {
        if (mapping.get(key).isPresent()) {
            return true;
        }
        findings.error(SpecCode.SPEC008, anchor, "missing required key '" + key + "'" + in(where), fix);
        return false;
    }

    Optional<YamlNode.Mapping> mapping(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Mapping m) {
            return Optional.of(m);
        }
        wrongType(node, key, where, "a mapping", "write '" + key + ":' followed by indented 'key: value' lines");
        return Optional.empty();
    }

    Optional<YamlNode.Sequence> sequence(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Sequence s) {
            return Optional.of(s);
        }
        wrongType(node, key, where, "a list", "write each item on its own line starting with '- '");
        return Optional.empty();
    }

    Optional<String> string(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Scalar s && s.value() instanceof String text) {
            return Optional.of(text);
        }
        wrongType(node, key, where, "a string", "quote the value: '" + key + ": \"...\"'");
        return Optional.empty();
    }

    /** An integer; an interpolated string counts when it expands to a whole number. */
    Optional<Long> integer(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Scalar s) {
            if (s.value() instanceof Long n) {
                return Optional.of(n);
            }
            if (s.value() instanceof BigInteger) {
                findings.error(SpecCode.SPEC009, s.position(), "'" + key + "'" + in(where) + " is too large ("
                        + s.value() + ")", "use a value " + SpecKeys.range(key));
                return Optional.empty();
            }
            if (s.interpolated() && s.value() instanceof String text) {
                if (s.unresolved()) {
                    return Optional.empty();
                }
                if (WHOLE_NUMBER.matcher(text).matches()) {
                    try {
                        return Optional.of(Long.parseLong(text));
                    } catch (NumberFormatException tooLarge) {
                        // falls through to the type error below
                    }
                }
                findings.error(SpecCode.SPEC004, s.position(), "'" + key + "'" + in(where)
                        + " must be an integer, but " + s.display() + " does not expand to one",
                        "make the variable a whole number");
                return Optional.empty();
            }
        }
        wrongType(node, key, where, "an integer", "write a whole number without quotes");
        return Optional.empty();
    }

    /** A list of non-empty strings, e.g. column names; a single string is taken as a list of one. */
    Optional<List<String>> stringList(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Scalar) {
            return string(node, key, where).map(List::of);
        }
        Optional<YamlNode.Sequence> sequence = sequence(node, key, where);
        if (sequence.isEmpty()) {
            return Optional.empty();
        }
        List<String> items = new java.util.ArrayList<>();
        for (YamlNode item : sequence.get().items()) {
            Optional<String> text = string(item, key, where);
            if (text.isEmpty()) {
                return Optional.empty();
            }
            if (text.get().isBlank()) {
                findings.error(SpecCode.SPEC009, item.position(), "'" + key + "'" + in(where)
                        + " has an empty item", "name a column in each item");
                return Optional.empty();
            }
            items.add(text.get());
        }
        if (items.isEmpty()) {
            findings.error(SpecCode.SPEC009, node.position(), "'" + key + "'" + in(where) + " is empty",
                    "name at least one column, or remove '" + key + "'");
            return Optional.empty();
        }
        return Optional.of(List.copyOf(items));
    }

    /** A boolean; an interpolated string counts when it expands to true or false. */
    Optional<Boolean> bool(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Scalar s) {
            if (s.value() instanceof Boolean b) {
                return Optional.of(b);
            }
            if (s.interpolated() && s.value() instanceof String text) {
                if (s.unresolved()) {
                    return Optional.empty();
                }
                if (text.equals("true") || text.equals("false")) {
                    return Optional.of(Boolean.parseBoolean(text));
                }
                findings.error(SpecCode.SPEC004, s.position(), "'" + key + "'" + in(where)
                        + " must be true or false, but " + s.display() + " does not expand to either",
                        "make the variable true or false");
                return Optional.empty();
            }
        }
        wrongType(node, key, where, "true or false", "write true or false without quotes");
        return Optional.empty();
    }

    /** One of {@code allowed}; the value is returned as written, the caller maps it to its enum. */
    Optional<String> choice(YamlNode node, String key, String where, List<String> allowed) {
        Optional<String> text = string(node, key, where);
        if (text.isEmpty() || allowed.contains(text.get())) {
            return text;
        }
        YamlNode.Scalar s = (YamlNode.Scalar) node;
        if (s.unresolved()) {
            return Optional.empty();
        }
        findings.error(SpecCode.SPEC007, s.position(), "invalid value '" + s.display() + "' for '" + key + "'"
                        + in(where) + "; expected one of: " + String.join(", ", allowed),
                s.interpolated() ? "make the variable one of: " + String.join(", ", allowed)
                        : Suggestions.fixFor(text.get(), allowed, "use one of"));
        return Optional.empty();
    }

    /** {@code 500ms}, {@code 1s}, {@code 2m}, {@code 1h}. */
    Optional<Duration> duration(YamlNode node, String key, String where) {
        if (node instanceof YamlNode.Scalar s && (s.value() instanceof Long || s.value() instanceof Double)) {
            findings.error(SpecCode.SPEC010, s.position(), "invalid duration '" + s.display() + "' for '" + key
                    + "'" + in(where) + ": a unit is missing", "write a whole number with a unit: 500ms, 1s, 2m or 1h");
            return Optional.empty();
        }
        Optional<String> text = string(node, key, where);
        if (text.isEmpty() || ((YamlNode.Scalar) node).unresolved()) {
            return Optional.empty();
        }
        Matcher m = DURATION.matcher(text.get());
        if (m.matches()) {
            try {
                long amount = Long.parseLong(m.group(1));
                return Optional.of(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    default -> Duration.ofHours(amount);
                });
            } catch (ArithmeticException | NumberFormatException tooLarge) {
                // reported below
            }
        }
        findings.error(SpecCode.SPEC010, node.position(), "invalid duration '" + ((YamlNode.Scalar) node).display()
                + "' for '" + key + "'" + in(where), "write a whole number with a unit: 500ms, 1s, 2m or 1h");
        return Optional.empty();
    }

    void wrongType(YamlNode node, String key, String where, String expected, String fix) {
        // Never quote the value: it may be a literal secret.
        findings.error(SpecCode.SPEC004, node.position(),
                "'" + key + "'" + in(where) + " must be " + expected + ", found " + node.kind(), fix);
    }
}
