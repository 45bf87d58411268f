package io.sluice.spi.error;

import static java.util.Objects.requireNonNull;

/** The codes of the SPI's own default methods: a connector was asked for something it does not offer. */
public enum SpiCode implements ErrorCode {
    SPI001("the connection's connector cannot be a source"),
    SPI002("the connection's connector cannot be a target"),
    SPI003("the target keeps no run ledger, but the runner asked it to write ledger rows with its data"),
    SPI004("the target cannot load in one transaction, but the runner asked it to"),
    SPI005("the target cannot be loaded by several processes of one run (--join)"),
    SPI006("the source cannot load incrementally (incremental: cursor)"),
    SPI007("the target cannot load with the stream's load mode or index handling"),
    SPI008("the source cannot describe its columns as PostgreSQL types, so a target cannot be created from it"),
    SPI009("a columns: rule asks the source to compute a column (expression, mask), and it cannot"),
    SPI010("a stream has before: or after: hooks, and its target cannot run them"),
    SPI011("a row was set aside where the stream or its target sets none aside (rejects:)"),
    SPI012("a stream follows changes (changes:) where its source or target cannot");

    private final String summary;

    SpiCode(String summary) {
        this.summary = requireNonNull(summary, "summary is null");
    }

    @Override
    public String summary() {
        return summary;
    }
}
