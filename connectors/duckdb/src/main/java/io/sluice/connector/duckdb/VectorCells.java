package io.sluice.connector.duckdb;

import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.FastPath;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBReadableVector;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static java.util.Objects.requireNonNull;

/**
 * A vector of the current chunk, its NULL mask and fixed-width values read straight from its buffers. The public
 * getters check the row, the type and the mask again on every call, and {@code getLocalDate} builds a LocalDate that
 * the encoder turns back into days: in a profile of a SF 10 orders load its DATE column took 0.4 CPU-s per 15 M rows
 * through the getter, 0.1 s from the buffer.
 *
 * <p>The buffers are private fields and the layout DuckDB's (values packed at their width, the mask one bit per row
 * in 64-bit words, no mask when no row is NULL), so the buffers are read only on the duckdb_jdbc this was tested with
 * ({@link #FAST_PATH}) and only for a vector of the type the encoder expects; otherwise every call goes to the
 * vector's getters. Not thread-safe: one per encoder.
 */
final class VectorCells {
    static final FastPath FAST_PATH = new FastPath("duckdb-vector-cells", DuckDbJdbcVersion.TESTED,
            "NULL masks and fixed-width values read from the vectors' buffers",
            "values read with DuckDBReadableVector's checked getters");

    private final Members members; // null: the fast path is off
    private DuckDBReadableVector vector;
    private boolean rawMask;
    private boolean rawData;
    private ByteBuffer mask; // null with rawMask: no row of this chunk is NULL
    private ByteBuffer data;

    private VectorCells(Members members) {
        this.members = members;
    }

    /** Whether this runtime reads the buffers, and why; for plans and {@code sluice version}. */
    static FastPath.Selection<Members> selection() {
        return FAST_PATH.select(DuckDbJdbcVersion.runtime(), Pinned::members);
    }

    /** Cells for one encoder, reading the buffers when the fast path is on now. */
    static VectorCells forReader() {
        return new VectorCells(selection().members().orElse(null));
    }

    /**
     * Points at the vector of the current chunk. Values are read from its buffer when it is a {@code type} vector
     * of {@code width}-byte values ({@code type} null: through the getters, only the mask is read raw).
     */
    void bind(DuckDBReadableVector vector, DuckDBColumnType type, int width) {
        this.vector = requireNonNull(vector, "vector is null");
        rawMask = false;
        rawData = false;
        if (members == null) {
            return;
        }
        long rows = vector.rowCount();
        try {
            ByteBuffer validity = (ByteBuffer) members.validity().get(vector);
            if (validity == null || validity.capacity() >= (rows + 63) / 64 * 8) {
                mask = validity == null ? null : validity.duplicate().order(ByteOrder.nativeOrder());
                rawMask = true;
            }
            if (type != null && vector.getType() == type) {
                ByteBuffer values = (ByteBuffer) members.data().get(vector);
                if (values != null && values.capacity() >= rows * width) {
                    data = values.duplicate().order(ByteOrder.nativeOrder());
                    rawData = true;
                }
            }
        } catch (IllegalAccessException | RuntimeException e) {
            rawMask = false;
            rawData = false;
        }
    }

    /** Whether this chunk's values come from the buffer (for tests). */
    boolean readsBuffers() {
        return rawMask && rawData;
    }

    boolean isNull(int row) {
        if (rawMask) {
            return mask != null && (mask.getLong((row >>> 6) << 3) & (1L << row)) == 0;
        }
        return vector.isNull(row);
    }

    /** A BIGINT vector's value of a row that is not NULL. */
    long getLong(int row) {
        return rawData ? data.getLong(row << 3) : vector.getLong(row);
    }

    /** An INTEGER vector's value of a row that is not NULL. */
    int getInt(int row) {
        return rawData ? data.getInt(row << 2) : vector.getInt(row);
    }

    /** A DATE vector's days since 1970-01-01 of a row that is not NULL. */
    long getEpochDays(int row) {
        return rawData ? data.getInt(row << 2) : vector.getLocalDate(row).toEpochDay();
    }

    /** duckdb_jdbc's members this class reads: the vector's value buffer and its validity mask. */
    record Members(Field data, Field validity) {
        Members {
            requireNonNull(data, "data is null");
            requireNonNull(validity, "validity is null");
        }

        static Members find() throws ReflectiveOperationException {
            return new Members(bufferField("data"), bufferField("validity"));
        }
    }

    /** A {@code ByteBuffer} field of {@link DuckDBReadableVector}, made readable; also {@link StringCells}' data. */
    static Field bufferField(String name) throws NoSuchFieldException {
        Field field = DuckDBReadableVector.class.getDeclaredField(name);
        if (field.getType() != ByteBuffer.class) {
            throw new NoSuchFieldException("DuckDBReadableVector." + name + " is a " + field.getType().getName()
                    + ", not a ByteBuffer");
        }
        field.setAccessible(true);
        return field;
    }

    /** Looked up on first use, after the version check, and never again. */
    private static final class Pinned {
        private static final DriverMembers<Members> MEMBERS = DriverMembers.find(Members::find);

        static DriverMembers<Members> members() {
            return MEMBERS;
        }
    }
}
