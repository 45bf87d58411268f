package io.sluice.spi.data;

/**
 * How {@code sluice compare} hashes rows; both sides of a compare must use the same one, so the runner picks the
 * first (in this order) that both the source's {@link io.sluice.spi.read.SourceRows#hashes()} and the target's
 * {@link io.sluice.spi.write.TargetRows#hashes()} offer. Either way a value's text is what PostgreSQL prints for the target column's type
 * under the digest settings (UTC, ISO dates, shortest exact floats, hex bytea): the source renders its values as the
 * target will store them.
 */
public enum RowHash {
    /**
     * PostgreSQL on both sides: {@code hashtextextended} of each value's text and of the row's record text
     * ({@code ROW(...)::text}). The fastest, and PostgreSQL's alone.
     */
    POSTGRES,
    /**
     * Any engine: the first 60 bits of the MD5 of a text as an unsigned number. A value's text as above; a row's text
     * is its values in column order, each {@code <characters>:<text>} or {@code N} for NULL, joined by commas; a key's
     * bucket hashes the text of its key columns' values joined the same way.
     */
    PORTABLE
}
