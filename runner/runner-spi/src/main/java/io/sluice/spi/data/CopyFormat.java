package io.sluice.spi.data;

/** The COPY format both sides of a stream agree on. Binary unless the target cannot read a column's binary form. */
public enum CopyFormat {
    BINARY,
    TEXT
}
