package io.sluice.connector.duckdb;

import io.sluice.toolkit.driver.DriverMembers;
import io.sluice.toolkit.driver.FastPath;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBReadableVector;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Reads a VARCHAR vector's values as UTF-8 bytes straight into the COPY buffer. {@code getString()} cost a JNI call,
 * a byte[] and a String per value, which the encoder then turned back into UTF-8. A vector's data is DuckDB's
 * {@code string_t} array, 16 bytes a value: the length, then the bytes inline when they fit in 12, else a 4-byte
 * prefix and a pointer. Inline values are read from the vector's buffer; out-of-line ones are copied from native
 * memory with the FFM API on Java 22+ ({@link NativeBytes}), else fetched through DuckDB's own binding (one JNI call
 * and byte[], no String).
 *
 * <p>The vector's buffer is a private field and the layout DuckDB's, and a wrong pointer read through raw memory is
 * garbage or a crash, so this runs only on the duckdb_jdbc it was tested with ({@link #FAST_PATH}); elsewhere the
 * encoder uses {@code getString()}.
 */
final class StringCells {
    private static final int CELL_BYTES = 16;
    private static final int INLINE_BYTES = 12;
    private static final boolean NATIVE = NativeBytes.forRuntime().isPresent(); // false: Java 21
    static final FastPath FAST_PATH = new FastPath("duckdb-string-cells", DuckDbJdbcVersion.TESTED,
            "text copied from DuckDB's string_t cells, long values " + (NATIVE
                    ? "from native memory (FFM)" : "through duckdb_vector_get_string"),
            "text read with DuckDBReadableVector.getString(), a String each");

    private final Internals internals;
    private final NativeBytes nativeBytes; // null: long values come through the binding
    private ByteBuffer raw;
    private ByteBuffer cells;

    private StringCells(Internals internals) {
        this.internals = requireNonNull(internals, "internals is null");
        this.nativeBytes = internals.nativeCopy() ? NativeBytes.forRuntime().orElseThrow() : null;
    }

    /** Whether this runtime copies from the cells, and why; for plans and {@code sluice version}. */
    static FastPath.Selection<Internals> selection() {
        return FAST_PATH.select(DuckDbJdbcVersion.runtime(), Pinned::internals);
    }

    /** A reader's cells, or empty when the fast path is off and values come from {@code getString()}. */
    static Optional<StringCells> forReader() {
        return selection().members().map(StringCells::new);
    }

    /**
     * Points at the vector of the current chunk; false when it is not a VARCHAR vector whose buffer holds a cell per
     * row, and the caller must read this chunk with {@code getString()}.
     */
    boolean bind(DuckDBReadableVector vector) {
        try {
            raw = (ByteBuffer) internals.data().get(vector);
        } catch (IllegalAccessException | RuntimeException e) {
            raw = null;
        }
        if (raw == null || vector.getType() != DuckDBColumnType.VARCHAR
                || raw.capacity() < vector.rowCount() * CELL_BYTES) {
            cells = null;
            return false;
        }
        cells = raw.duplicate().order(ByteOrder.nativeOrder());
        return true;
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
        } else if (nativeBytes != null) {
            nativeBytes.copy(cells.getLong(cell + 8), into, offset, length);
        } else {
            System.arraycopy(viaBinding(row), 0, into, offset, length);
        }
    }

    private byte[] viaBinding(int row) {
        try {
            return (byte[]) internals.getString().orElseThrow().invokeExact(raw, (long) row);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether out-of-line values are copied without JNI (for docs and tests). */
    static boolean copiesNatively() {
        return NATIVE;
    }

    /**
     * duckdb_jdbc's members this class reads: the vector's buffer, and for values longer than 12 bytes, FFM or the
     * binding that fetches one value (needed only without FFM).
     */
    record Internals(Field data, boolean nativeCopy, Optional<MethodHandle> getString) {
        Internals {
            requireNonNull(data, "data is null");
            requireNonNull(getString, "getString is null");
            if (!nativeCopy && getString.isEmpty()) {
                throw new IllegalArgumentException("long values need FFM or the binding");
            }
        }

        /** The members by name, checked for the types this class uses them as. */
        static Internals find(String dataField, String getStringMethod) throws ReflectiveOperationException {
            Field data = VectorCells.bufferField(dataField);
            Optional<MethodHandle> getString = Optional.empty();
            try {
                getString = Optional.of(binding(getStringMethod));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                if (!NATIVE) {
                    throw e; // without FFM it is the only way to long values
                }
            }
            return new Internals(data, NATIVE, getString);
        }

        /** {@code static byte[] name(ByteBuffer vector, long row)} of DuckDB's bindings, without initialising them. */
        private static MethodHandle binding(String name) throws ReflectiveOperationException {
            Class<?> bindings = Class.forName("org.duckdb.DuckDBBindings", false,
                    DuckDBReadableVector.class.getClassLoader());
            Method method = bindings.getDeclaredMethod(name, ByteBuffer.class, long.class);
            if (method.getReturnType() != byte[].class) {
                throw new NoSuchMethodException("DuckDBBindings." + name + " returns "
                        + method.getReturnType().getName() + ", not byte[]");
            }
            method.setAccessible(true);
            return MethodHandles.lookup().unreflect(method)
                    .asType(MethodType.methodType(byte[].class, ByteBuffer.class, long.class));
        }
    }

    /** Looked up on first use, after the version check, and never again. */
    private static final class Pinned {
        private static final DriverMembers<Internals> INTERNALS = DriverMembers.find(() -> Internals.find("data",
                "duckdb_vector_get_string"));

        static DriverMembers<Internals> internals() {
            return INTERNALS;
        }
    }
}
