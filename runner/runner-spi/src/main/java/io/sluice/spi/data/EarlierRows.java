package io.sluice.spi.data;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the rows a table held before one of its columns was added hold in that column: what a target that adds the
 * column later gives the rows it copied before. One fact, so a column cannot claim one value and values of their own.
 */
public sealed interface EarlierRows {
    /** NULL, or nothing the source can tell (the default). */
    EarlierRows NULL = new Null();

    /**
     * Values of their own that no default tells (a volatile default computed per row, or a default since written into
     * every row by a table rewrite): a target adding the column to rows it does not read again cannot give them theirs.
     */
    EarlierRows PER_ROW = new PerRow();

    /** One value, in the type's text form (PostgreSQL's "missing value" of a column added with a default). */
    static EarlierRows value(String text) {
        return new Value(text);
    }

    /** The one value they all hold, when there is one. */
    default Optional<String> oneValue() {
        return this instanceof Value value ? Optional.of(value.text()) : Optional.empty();
    }

    /** Whether each row may hold a value of its own ({@link #PER_ROW}). */
    default boolean perRow() {
        return this instanceof PerRow;
    }

    /** NULL, or not known. */
    record Null() implements EarlierRows {
    }

    /** One value for every earlier row. */
    record Value(String text) implements EarlierRows {
        public Value {
            requireNonNull(text, "text is null");
        }
    }

    /** A value of their own in each earlier row. */
    record PerRow() implements EarlierRows {
    }
}
