package io.sluice.spi.connector;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Validated option values for one {@link OptionSchema}. The core builds them from the spec after checking keys and
 * types, so a connector reads typed values and never sees the raw YAML.
 */
public final class Options {
    private final OptionSchema schema;
    private final Map<String, Object> values;

    private Options(OptionSchema schema, Map<String, ?> values) {
        this.schema = requireNonNull(schema, "schema is null");
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(values, "values is null")));
    }

    /**
     * Builds options from already type-checked values. Throws IllegalArgumentException when a key is unknown, a
     * value has the wrong Java type, or a required option is missing: callers (the spec loader) report those as
     * positioned diagnostics before they get here.
     */
    public static Options of(OptionSchema schema, Map<String, ?> values) {
        requireNonNull(schema, "schema is null");
        requireNonNull(values, "values is null");
        for (Map.Entry<String, ?> entry : values.entrySet()) {
            Option<?> option = schema.find(entry.getKey())
                    .orElseThrow(() -> new IllegalArgumentException("unknown option: " + entry.getKey()));
            if (entry.getValue() != null && !option.javaType().isInstance(entry.getValue())) {
                throw new IllegalArgumentException("option " + option.key() + " expects " + option.type()
                        + " but got " + entry.getValue().getClass().getSimpleName());
            }
        }
        for (Option<?> option : schema.options()) {
            if (option.isRequired() && values.get(option.key()) == null) {
                throw new IllegalArgumentException("missing required option: " + option.key());
            }
        }
        return new Options(schema, values);
    }

    public static Options empty() {
        return new Options(OptionSchema.empty(), Map.of());
    }

    /** The value, or the option's default, or empty. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> find(Option<T> option) {
        requireNonNull(option, "option is null");
        Object value = values.get(option.key());
        if (value == null) {
            return option.defaultValue();
        }
        return Optional.of((T) value);
    }

    /** The value or the default; throws when neither exists (the option should have been declared required). */
    public <T> T get(Option<T> option) {
        return find(option).orElseThrow(() -> new IllegalStateException("option '" + option.key() + "' has no value"));
    }

    /** These options with {@code option} set to {@code value} (a connector deriving one object's options). */
    public <T> Options with(Option<T> option, T value) {
        requireNonNull(option, "option is null");
        Map<String, Object> copy = new LinkedHashMap<>(values);
        copy.put(option.key(), value);
        return of(schema, copy);
    }

    /** These options without {@code option}. */
    public Options without(Option<?> option) {
        requireNonNull(option, "option is null");
        Map<String, Object> copy = new LinkedHashMap<>(values);
        copy.remove(option.key());
        return of(schema, copy);
    }

    public boolean isSet(Option<?> option) {
        return values.get(option.key()) != null;
    }

    public OptionSchema schema() {
        return schema;
    }

    /** Equal when they set the same values (defaults apart): e.g. two streams that name one target table. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Options o && values.equals(o.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        // Never print values: any of them may be a secret.
        return "Options" + values.keySet();
    }
}
