package io.sluice.connector.duckdb;

import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBReadableVector;

/**
 * An encoder whose column is carried by one vector of the chunk: it keeps the vector of the current chunk.
 * Subclasses keep their own {@link #encode}, NULL check included, so the per-value path stays one call.
 */
abstract class VectorEncoder implements ColumnEncoder {
    private final int index;
    protected DuckDBReadableVector vector;

    VectorEncoder(int index) {
        this.index = index;
    }

    @Override
    public final void bind(DuckDBDataChunkReader chunk) {
        vector = chunk.vector(index);
        bound(vector);
    }

    /** For encoders that read the vector's memory themselves. */
    protected void bound(DuckDBReadableVector vector) {
    }
}
