package io.sluice.spi.read;

import java.util.Locale;

/** How a source splits a stream into partitions. Spec spelling is the kebab-case form: {@code data-driven}. */
public enum DistributionMethod {
    NONE,
    CTID,
    RANGE,
    NTILE,
    MODULO,
    DATA_DRIVEN;

    public String specName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether the method needs a {@code key}. */
    public boolean needsKey() {
        return this == RANGE || this == NTILE || this == MODULO || this == DATA_DRIVEN;
    }
}
