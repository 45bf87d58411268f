package io.sluice.connector.duckdb;

/**
 * Copies bytes from native memory into a Java array. The implementation needs the FFM API (final in Java 22) and is
 * compiled only by a JDK 22 or newer; {@link #forRuntime()} is empty on Java 21 or when it was not built. An instance
 * keeps state of its last copy: one per reader.
 */
interface NativeBytes {
    void copy(long address, byte[] into, int offset, int length);

    /** A new instance, or empty when this runtime has no FFM or the class was not built. */
    static java.util.Optional<NativeBytes> forRuntime() {
        if (Runtime.version().feature() < 22) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of((NativeBytes) Class.forName("io.sluice.connector.duckdb.ForeignMemoryBytes")
                    .getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | LinkageError e) {
            return java.util.Optional.empty();
        }
    }
}
