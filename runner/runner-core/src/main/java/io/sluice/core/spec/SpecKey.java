package io.sluice.core.spec;

import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * One key of the spec as declared in {@link SpecReference}: its name, where it may be written, the values it takes
 * and its default as a reader sees them, and what it means (markdown, as docs/spec.md shows it).
 */
record SpecKey(String name, Scope scope, String values, String defaultValue, String meaning) {
    /** Where a key may be written. */
    enum Scope {
        /** At the top of the spec. */
        TOP,
        /** In a stream only. */
        STREAM,
        /** In a stream, or under {@code defaults:} for every stream. */
        SETTING
    }

    private static final Pattern LINK = Pattern.compile("\\[([^]]+)]\\([^)]*\\)");

    SpecKey {
        requireNonNull(name, "name is null");
        requireNonNull(scope, "scope is null");
        requireNonNull(values, "values is null");
        requireNonNull(defaultValue, "defaultValue is null");
        requireNonNull(meaning, "meaning is null");
    }

    /** The meaning as plain text, for an editor's tooltip: no code marks, links as their text. */
    String plainMeaning() {
        return LINK.matcher(meaning).replaceAll("$1").replace("`", "");
    }
}
