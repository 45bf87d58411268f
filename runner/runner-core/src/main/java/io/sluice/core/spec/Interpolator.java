package io.sluice.core.spec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Expands {@code ${VAR}}, {@code ${VAR:-default}} and {@code ${file:PATH}} in every string value of the tree, once,
 * before the values are bound to the spec. Every substituted text becomes a secret. {@code $${} is a literal
 * {@code ${}.
 */
final class Interpolator {
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Environment environment;
    private final SpecLoader.Mode mode;
    private final Path specDirectory;
    private final Findings findings;
    private final Set<String> secrets;

    Interpolator(Environment environment, SpecLoader.Mode mode, Path specDirectory, Findings findings,
                 Set<String> secrets) {
        this.environment = requireNonNull(environment, "environment is null");
        this.mode = requireNonNull(mode, "mode is null");
        this.specDirectory = requireNonNull(specDirectory, "specDirectory is null");
        this.findings = requireNonNull(findings, "findings is null");
        this.secrets = requireNonNull(secrets, "secrets is null");
    }

    YamlNode.Mapping interpolate(YamlNode.Mapping root) {
        return (YamlNode.Mapping) visit(root, "");
    }

    private YamlNode visit(YamlNode node, String path) {
        return switch (node) {
            case YamlNode.Mapping m -> {
                List<YamlNode.Entry> entries = new ArrayList<>();
                for (YamlNode.Entry e : m.entries()) {
                    String child = path.isEmpty() ? e.key() : path + "." + e.key();
                    entries.add(new YamlNode.Entry(e.key(), e.keyPosition(), visit(e.value(), child)));
                }
                yield new YamlNode.Mapping(entries, m.position());
            }
            case YamlNode.Sequence s -> {
                List<YamlNode> items = new ArrayList<>();
                for (int i = 0; i < s.items().size(); i++) {
                    items.add(visit(s.items().get(i), path + "." + itemLabel(s.items().get(i), i)));
                }
                yield new YamlNode.Sequence(items, s.position());
            }
            case YamlNode.Scalar sc when sc.value() instanceof String text && text.contains("${") ->
                    expand(sc, text, path);
            case YamlNode.Scalar sc -> sc;
        };
    }

    /** A stream is named by its {@code name} in paths ("streams.orders.source.table"), else by its index. */
    private static String itemLabel(YamlNode item, int index) {
        if (item instanceof YamlNode.Mapping m && m.get("name").orElse(null) instanceof YamlNode.Scalar name
                && name.value() instanceof String s && !s.isBlank() && !s.contains("${")) {
            return s;
        }
        return String.valueOf(index);
    }

    private YamlNode.Scalar expand(YamlNode.Scalar scalar, String text, String path) {
        StringBuilder out = new StringBuilder();
        boolean substituted = false;
        boolean unresolved = false;
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
                continue;
            }
            if (!text.startsWith("${", i)) {
                out.append(text.charAt(i++));
                continue;
            }
            int end = text.indexOf('}', i + 2);
            if (end < 0) {
                findings.error(SpecCode.SPEC020, scalar.position(), "unterminated '${' in '" + path + "'",
                        "close it with '}', or write '$${' for a literal '${'");
                return scalar;
            }
            String expression = text.substring(i + 2, end);
            Optional<Resolved> resolved = resolve(expression, scalar, path);
            if (resolved.isEmpty()) {
                return scalar;
            }
            substituted = true;
            unresolved |= resolved.get().unresolved();
            String value = resolved.get().value();
            if (!value.isEmpty()) {
                secrets.add(value);
            }
            out.append(value);
            i = end + 1;
        }
        return new YamlNode.Scalar(out.toString(), scalar.raw(), substituted, unresolved, scalar.position());
    }

    private record Resolved(String value, boolean unresolved) {
    }

    private Optional<Resolved> resolve(String expression, YamlNode.Scalar scalar, String path) {
        if (expression.startsWith("file:")) {
            return Optional.of(readFile(expression.substring("file:".length()).strip(), scalar, path));
        }
        int dash = expression.indexOf(":-");
        String name = dash < 0 ? expression : expression.substring(0, dash);
        if (!VARIABLE.matcher(name).matches()) {
            findings.error(SpecCode.SPEC020, scalar.position(),
                    "malformed '${" + expression + "}' in '" + path + "'",
                    "write ${VAR}, ${VAR:-default} or ${file:PATH}, with VAR made of letters, digits and '_'");
            return Optional.empty();
        }
        Optional<String> value = environment.variable(name).filter(v -> !(dash >= 0 && v.isEmpty()));
        if (value.isPresent()) {
            return Optional.of(new Resolved(value.get(), false));
        }
        if (dash >= 0) {
            return Optional.of(new Resolved(expression.substring(dash + 2), false));
        }
        String message = "environment variable '" + name + "' is not set (used by '" + path + "')";
        String fix = "set " + name + ", or give a default: ${" + name + ":-...}";
        if (mode == SpecLoader.Mode.RUN) {
            findings.error(SpecCode.SPEC019, scalar.position(), message, fix);
        } else {
            findings.note(SpecCode.SPEC019, scalar.position(), message + "; linted as empty", fix);
        }
        return Optional.of(new Resolved("", true));
    }

    private Resolved readFile(String file, YamlNode.Scalar scalar, String path) {
        if (file.isEmpty()) {
            findings.error(SpecCode.SPEC020, scalar.position(), "'${file:}' without a path in '" + path + "'",
                    "write ${file:PATH}, relative to the spec's folder or absolute");
            return new Resolved("", true);
        }
        Path resolved = specDirectory.resolve(file);
        try {
            return new Resolved(environment.readFile(resolved).strip(), false);
        } catch (IOException | RuntimeException e) {
            // The exception text names only the path, never content.
            String message = "cannot read '" + file + "' for '${file:" + file + "}' (used by '" + path + "'): "
                    + e.getClass().getSimpleName();
            String fix = "check the path; a relative path starts at the spec's folder";
            if (mode == SpecLoader.Mode.RUN) {
                findings.error(SpecCode.SPEC021, scalar.position(), message, fix);
            } else {
                findings.note(SpecCode.SPEC021, scalar.position(), message + "; linted as empty", fix);
            }
            return new Resolved("", true);
        }
    }
}
