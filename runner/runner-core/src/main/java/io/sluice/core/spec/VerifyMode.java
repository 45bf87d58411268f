package io.sluice.core.spec;

public enum VerifyMode {
    /** Only the always-on check: rows read equal rows written, per partition. */
    NONE,
    /** After the load, count rows per partition on both sides. */
    COUNT,
    /** After the load, an order-independent hash per partition on both sides (PostgreSQL to PostgreSQL). */
    CHECKSUM,
    /**
     * After the load, before it goes live (a replace's swap, a one-transaction truncate's commit): {@code sluice
     * compare} of the loaded rows with the source's snapshot, every differing row named.
     */
    COMPARE
}
