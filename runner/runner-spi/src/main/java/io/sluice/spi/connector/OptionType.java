package io.sluice.spi.connector;

/** The value types a connector option can declare; they map one to one onto JSON Schema types. */
public enum OptionType {
    STRING,
    INTEGER,
    BOOLEAN,
    /** A flat map of string keys to string values, e.g. JDBC driver properties. */
    STRING_MAP,
    /** A list of strings, e.g. column names. */
    STRING_LIST,
    /** A nested object with its own {@link OptionSchema}. */
    OBJECT
}
