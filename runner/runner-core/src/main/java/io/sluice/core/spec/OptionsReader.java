package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Binds the connector-specific keys of a connection, source or target to the connector's declared
 * {@link OptionSchema}: types, required keys, allowed values, nested objects, unknown keys. Collects secrets (secret
 * options, passwords inside URLs) and warns when one is written literally.
 */
final class OptionsReader {
    /** {@code scheme://user:password@host} */
    private static final Pattern URL_USERINFO = Pattern.compile("://[^/:@\\s]*:([^@/\\s]+)@");
    /** {@code ...?password=...} or {@code &password=...} */
    private static final Pattern URL_PASSWORD_PARAM = Pattern.compile("(?i)[?&;]password=([^&;\\s]+)");

    private final ValueReader values;
    private final Set<String> secrets;

    OptionsReader(ValueReader values, Set<String> secrets) {
        this.values = requireNonNull(values, "values is null");
        this.secrets = requireNonNull(secrets, "secrets is null");
    }

    /**
     * Validated options of {@code mapping}, ignoring {@code reserved} keys (read by the caller, e.g. {@code type}),
     * or empty when any of them is invalid (already reported).
     */
    Optional<Options> read(YamlNode.Mapping mapping, Position anchor, OptionSchema schema,
                           Set<String> reserved, String where) {
        List<String> allowed = new ArrayList<>(reserved);
        schema.options().forEach(o -> allowed.add(o.key()));
        values.rejectUnknownKeys(mapping, allowed, where);
        boolean valid = true;
        Map<String, Object> bound = new LinkedHashMap<>();
        for (YamlNode.Entry entry : mapping.entries()) {
            Optional<Option<?>> option = schema.find(entry.key());
            if (option.isEmpty() || reserved.contains(entry.key())) {
                valid &= reserved.contains(entry.key());
                continue;
            }
            YamlNode.Scalar unresolved = entry.value() instanceof YamlNode.Scalar s && s.unresolved() ? s : null;
            Optional<?> value = bind(option.get(), entry, where);
            if (value.isPresent()) {
                // A text with an unset variable is unknown while linting: connectors get it empty, which they skip,
                // not half-expanded ("${SCHEMA}.orders" as ".orders" is no table name the user wrote).
                bound.put(entry.key(), unresolved != null && value.get() instanceof String ? "" : value.get());
            } else if (unresolved == null) {
                valid = false;
            }
        }
        for (Option<?> option : schema.options()) {
            if (option.isRequired() && !mapping.get(option.key()).isPresent()) {
                values.require(mapping, anchor, option.key(), where, "add '" + option.key() + ":'"
                        + (option.description().isEmpty() ? "" : " (" + option.description() + ")"));
                valid = false;
            } else if (option.isRequired() && !bound.containsKey(option.key())) {
                // Present but unresolved while linting: a placeholder keeps the options buildable for lintStream.
                bound.putIfAbsent(option.key(), placeholder(option));
            }
        }
        return valid ? Optional.of(Options.of(schema, bound)) : Optional.empty();
    }

    private static Object placeholder(Option<?> option) {
        return switch (option.type()) {
            case STRING -> "";
            case INTEGER -> 0L;
            case BOOLEAN -> false;
            case STRING_MAP -> Map.of();
            case STRING_LIST -> java.util.List.of();
            case OBJECT -> Options.empty();
        };
    }

    private Optional<?> bind(Option<?> option, YamlNode.Entry entry, String where) {
        YamlNode node = entry.value();
        String key = option.key();
        return switch (option.type()) {
            case STRING -> {
                Optional<String> text = option.allowedValues().isEmpty()
                        ? values.string(node, key, where)
                        : values.choice(node, key, where, option.allowedValues());
                text.ifPresent(t -> collectSecrets(option, (YamlNode.Scalar) node, t, where));
                yield text;
            }
            case INTEGER -> values.integer(node, key, where);
            case BOOLEAN -> values.bool(node, key, where);
            case STRING_MAP -> values.mapping(node, key, where).flatMap(m -> stringMap(m, key, where));
            case STRING_LIST -> values.stringList(node, key, where);
            case OBJECT -> values.mapping(node, key, where).flatMap(m -> read(m, entry.keyPosition(),
                    option.nested().orElseThrow(), Set.of(), ValueReader.nested(key, where)));
        };
    }

    private Optional<Map<String, String>> stringMap(YamlNode.Mapping mapping, String key, String where) {
        Map<String, String> result = new LinkedHashMap<>();
        boolean valid = true;
        for (YamlNode.Entry e : mapping.entries()) {
            // Driver properties are strings, but YAML makes numbers and booleans of unquoted ones: take them as text.
            if (e.value() instanceof YamlNode.Scalar s && s.value() != null) {
                result.put(e.key(), String.valueOf(s.value()));
                if (e.key().toLowerCase(java.util.Locale.ROOT).contains("password")) {
                    collectSecret(e.key(), s, String.valueOf(s.value()), ValueReader.nested(key, where));
                }
            } else {
                values.wrongType(e.value(), e.key(), ValueReader.nested(key, where),
                        "a string, number or boolean", "write a single value");
                valid = false;
            }
        }
        return valid ? Optional.of(result) : Optional.empty();
    }

    private void collectSecrets(Option<?> option, YamlNode.Scalar node, String value, String where) {
        if (option.isSecret()) {
            collectSecret(option.key(), node, value, where);
        }
        for (Pattern pattern : List.of(URL_USERINFO, URL_PASSWORD_PARAM)) {
            Matcher m = pattern.matcher(value);
            while (m.find()) {
                secrets.add(m.group(1));
                if (!node.interpolated() && !m.group(1).contains("${")) {
                    values.findings().warning(SpecCode.SPEC018, node.position(),
                            "literal password in the URL of '" + option.key() + "'" + ValueReader.in(where),
                            "remove it from the URL and use a password option with ${VAR} or ${file:PATH}");
                }
            }
        }
    }

    private void collectSecret(String key, YamlNode.Scalar node, String value, String where) {
        if (value.isEmpty() || (!node.interpolated() && node.raw().contains("${"))) {
            return; // empty, or a malformed ${...} that is already an error
        }
        secrets.add(value);
        if (!node.interpolated()) {
            values.findings().warning(SpecCode.SPEC018, node.position(),
                    "literal secret in '" + key + "'" + ValueReader.in(where),
                    "use ${VAR} or ${file:PATH} so the secret stays out of version control");
        }
    }
}
