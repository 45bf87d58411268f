package io.sluice.spi.connector;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One declared option of a connector: its YAML key, type, default and whether its value is a secret.
 * Options are immutable; the fluent methods return a new instance.
 *
 * @param <T> the Java type a validated value has: String, Long, Boolean, Map&lt;String,String&gt;,
 *            List&lt;String&gt; or {@link Options}
 */
public final class Option<T> {
    private final String key;
    private final OptionType type;
    private final Class<?> javaType;
    private final T defaultValue;
    private final boolean required;
    private final boolean secret;
    private final String description;
    private final List<String> allowedValues;
    private final OptionSchema nested;
    private final boolean naming;

    private Option(String key, OptionType type, Class<?> javaType, T defaultValue, boolean required, boolean secret,
                   String description, List<String> allowedValues, OptionSchema nested, boolean naming) {
        this.key = requireNonNull(key, "key is null");
        if (!key.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
            throw new IllegalArgumentException("option key must be kebab-case: " + key);
        }
        this.type = requireNonNull(type, "type is null");
        this.javaType = requireNonNull(javaType, "javaType is null");
        this.defaultValue = defaultValue;
        this.required = required;
        this.secret = secret;
        this.description = requireNonNull(description, "description is null");
        this.allowedValues = List.copyOf(requireNonNull(allowedValues, "allowedValues is null"));
        this.nested = nested;
        this.naming = naming;
    }

    public static Option<String> string(String key) {
        return new Option<>(key, OptionType.STRING, String.class, null, false, false, "", List.of(), null, false);
    }

    public static Option<Long> integer(String key) {
        return new Option<>(key, OptionType.INTEGER, Long.class, null, false, false, "", List.of(), null, false);
    }

    public static Option<Boolean> bool(String key) {
        return new Option<>(key, OptionType.BOOLEAN, Boolean.class, null, false, false, "", List.of(), null, false);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Option<Map<String, String>> stringMap(String key) {
        return new Option<>(key, OptionType.STRING_MAP, (Class) Map.class, null, false, false, "", List.of(), null,
                false);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Option<List<String>> stringList(String key) {
        return new Option<>(key, OptionType.STRING_LIST, (Class) List.class, null, false, false, "", List.of(), null,
                false);
    }

    public static Option<Options> object(String key, OptionSchema schema) {
        requireNonNull(schema, "schema is null");
        return new Option<>(key, OptionType.OBJECT, Options.class, null, false, false, "", List.of(), schema, false);
    }

    public Option<T> withDefault(T value) {
        requireNonNull(value, "value is null");
        return new Option<>(key, type, javaType, value, required, secret, description, allowedValues, nested, naming);
    }

    public Option<T> required() {
        return new Option<>(key, type, javaType, defaultValue, true, secret, description, allowedValues, nested,
                naming);
    }

    /** Marks the value as a secret: it is never printed in logs, plans, errors or summaries. */
    public Option<T> secret() {
        return new Option<>(key, type, javaType, defaultValue, required, true, description, allowedValues, nested,
                naming);
    }

    public Option<T> describedAs(String text) {
        return new Option<>(key, type, javaType, defaultValue, required, secret, text, allowedValues, nested, naming);
    }

    /** Restricts a STRING option to these values (an enum in the JSON Schema). */
    public Option<T> oneOf(String... values) {
        if (type != OptionType.STRING) {
            throw new IllegalStateException("oneOf applies to STRING options only: " + key);
        }
        return new Option<>(key, type, javaType, defaultValue, required, secret, description, List.of(values),
                nested, naming);
    }

    /**
     * Marks a stream option as one that names what the side reads or writes (a table, a query, files): findings about
     * that object point at this key's line. A side usually has one or two, of which the spec sets one.
     */
    public Option<T> naming() {
        return new Option<>(key, type, javaType, defaultValue, required, secret, description, allowedValues, nested,
                true);
    }

    public String key() {
        return key;
    }

    public OptionType type() {
        return type;
    }

    public Class<?> javaType() {
        return javaType;
    }

    public Optional<T> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    public boolean isRequired() {
        return required;
    }

    public boolean isSecret() {
        return secret;
    }

    public String description() {
        return description;
    }

    public List<String> allowedValues() {
        return allowedValues;
    }

    /** Whether this option names the object a stream side reads or writes; see {@link #naming()}. */
    public boolean isNaming() {
        return naming;
    }

    /** The schema of an OBJECT option's value; empty for other types. */
    public Optional<OptionSchema> nested() {
        return Optional.ofNullable(nested);
    }

    @Override
    public String toString() {
        return key + ":" + type;
    }
}
