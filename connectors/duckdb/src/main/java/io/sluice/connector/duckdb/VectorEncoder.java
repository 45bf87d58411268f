package io.sluice.connector.duckdb;

import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBReadableVector;

/**
 * An encoder whose column is carried by one vector of the chunk: it keeps the vector of the current chunk and its
 * {@link VectorCells}. Subclasses keep their own {@link #encode}, NULL check included, so the per-value path stays one
 * call.
 */
abstract class VectorEncoder implements ColumnEncoder {
    private final int index;
    private final DuckDBColumnType rawType;
    private final int rawWidth;
    protected final VectorCells cells = VectorCells.forReader();
    protected DuckDBReadableVector vector;

    /** An encoder that reads values through the vector's getters (and the NULL mask from its buffer). */
    VectorEncoder(int index) {
        this(index, null, 0);
    }

    /** An encoder that reads {@code rawWidth}-byte values of a {@code rawType} vector through {@link #cells}. */
    VectorEncoder(int index, DuckDBColumnType rawType, int rawWidth) {
        this.index = index;
        this.rawType = rawType;
        this.rawWidth = rawWidth;
    }

    @Override
    public final void bind(DuckDBDataChunkReader chunk) {
        vector = chunk.vector(index);
        cells.bind(vector, rawType, rawWidth);
        bound(vector);
    }

    @Override
    public Object valueAt(int row) {
        return RowValues.of(vector, row);
    }

    /** For encoders that read the vector's memory themselves. */
    protected void bound(DuckDBReadableVector vector) {
    }
}
