package io.sluice.connector.duckdb;

import org.duckdb.DuckDBReadableVector;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads a VARCHAR vector's values as UTF-8 bytes straight into the COPY buffer. {@code getString()} cost a JNI call,
 * a byte[] and a String per value, which the encoder then turned back into UTF-8. A vector's data is DuckDB's
 * {@code string_t} array, 16 bytes a value: the length, then the bytes inline when they fit in 12, else a 4-byte
 * prefix and a pointer. Inline values are read from the vector's buffer; out-of-line ones are copied from native
 * memory with the FFM API on Java 22+ ({@link NativeBytes}), else fetched through DuckDB's own binding (one JNI call
 * and byte[], no String).
 */
final class StringCells {
    private static final int CELL_BYTES = 16;
    private static final int INLINE_BYTES = 12;
    private static final Field DATA;
    private static final MethodHandle GET_STRING;
    private static final NativeBytes NATIVE = NativeBytes.forRuntime().orElse(null); // null: Java 21

    static {
        try {
            DATA = DuckDBReadableVector.class.getDeclaredField("data");
            DATA.setAccessible(true);
            Class<?> bindings = Class.forName("org.duckdb.DuckDBBindings");
            java.lang.reflect.Method getString = bindings.getDeclaredMethod("duckdb_vector_get_string",
                    ByteBuffer.class, long.class);
            getString.setAccessible(true);
            GET_STRING = MethodHandles.lookup().unreflect(getString)
                    .asType(MethodType.methodType(byte[].class, ByteBuffer.class, long.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError("duckdb_jdbc"
                    + " no longer has the vector internals this reader was built for: " + e);
        }
    }

    private DuckDBReadableVector vector;
    private ByteBuffer raw;
    private ByteBuffer cells;

    /** Points at the vector of the current chunk; must be a VARCHAR vector. */
    void bind(DuckDBReadableVector vector) {
        this.vector = vector;
        try {
            raw = (ByteBuffer) DATA.get(vector);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        cells = raw.duplicate().order(ByteOrder.nativeOrder());
    }

    boolean isNull(int row) {
        return vector.isNull(row);
    }

    /** The value's length in bytes. */
    int length(int row) {
        return cells.getInt(row * CELL_BYTES);
    }

    /** Copies the value's {@code length} bytes into {@code into} at {@code offset}. */
    void copy(int row, int length, byte[] into, int offset) {
        int cell = row * CELL_BYTES;
        if (length <= INLINE_BYTES) {
            cells.get(cell + 4, into, offset, length);
        } else if (NATIVE != null) {
            NATIVE.copy(cells.getLong(cell + 8), into, offset, length);
        } else {
            System.arraycopy(viaBinding(row), 0, into, offset, length);
        }
    }

    private byte[] viaBinding(int row) {
        try {
            return (byte[]) GET_STRING.invokeExact(raw, (long) row);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether out-of-line values are copied without JNI (for docs and tests). */
    static boolean copiesNatively() {
        return NATIVE != null;
    }
}
