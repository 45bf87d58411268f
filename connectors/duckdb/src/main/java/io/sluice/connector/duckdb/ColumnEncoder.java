package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import org.duckdb.DuckDBDataChunkReader;

/**
 * Writes one stream column of each row from its carrier vector(s) in the current chunk: the SQL expressions that
 * read the column in a form the chunk API has an allocation-free getter for. One instance per reader (it keeps
 * scratch state).
 */
interface ColumnEncoder {
    /** Points the encoder at the vectors of a new chunk. */
    void bind(DuckDBDataChunkReader chunk);

    /**
     * The value of {@code row} as read, for a row set aside: a Number, Boolean or String (JSON shows numbers and
     * booleans as such, the rest as text), or null. Not on the hot path.
     */
    Object valueAt(int row);

    /** Writes the value of {@code row} (NULL included). */
    void encode(int row, BinaryCopyEncoder out) throws ConnectorException;

    /** Creates an encoder for one reader; {@code firstVector} is the index of the column's first carrier. */
    @FunctionalInterface
    interface Factory {
        ColumnEncoder create(int firstVector, ColumnOrigin origin);
    }
}
