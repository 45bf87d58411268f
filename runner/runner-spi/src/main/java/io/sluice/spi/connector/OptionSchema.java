package io.sluice.spi.connector;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The ordered set of options a connector accepts in one place (connection, stream source, stream target). */
public final class OptionSchema {
    private static final OptionSchema EMPTY = new OptionSchema(List.of());

    private final Map<String, Option<?>> options;

    private OptionSchema(List<Option<?>> options) {
        Map<String, Option<?>> byKey = new LinkedHashMap<>();
        for (Option<?> option : requireNonNull(options, "options is null")) {
            if (byKey.put(option.key(), option) != null) {
                throw new IllegalArgumentException("duplicate option key: " + option.key());
            }
        }
        this.options = byKey;
    }

    public static OptionSchema of(Option<?>... options) {
        return new OptionSchema(List.of(options));
    }

    public static OptionSchema empty() {
        return EMPTY;
    }

    public List<Option<?>> options() {
        return List.copyOf(options.values());
    }

    public Optional<Option<?>> find(String key) {
        return Optional.ofNullable(options.get(key));
    }

    public boolean isEmpty() {
        return options.isEmpty();
    }
}
