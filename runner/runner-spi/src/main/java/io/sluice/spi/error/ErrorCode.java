package io.sluice.spi.error;

/**
 * A stable error code as users see it in messages, summaries, the ledger and logs (e.g. {@code PG420}), with what
 * it means. A connector declares its codes as an enum implementing this interface, one constant per code named as
 * the code, so they can be listed and documented; a code never changes meaning and is never reused.
 */
public interface ErrorCode {
    /** The code as users see it, e.g. {@code PG420}: an enum constant's own name. */
    String name();

    /** One line saying what the code means, e.g. "a lock wait outlasted the stream's lock-timeout". */
    String summary();
}
