package io.sluice.connector.duckdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@link NativeBytes} through the FFM API: no JNI call and no allocation per copy. Compiled with {@code --release 22}
 * (see the java22 profile of this module) and loaded by name only on a Java 22+ runtime.
 */
final class ForeignMemoryBytes implements NativeBytes {
    // A zero-length segment at address 0, resized per copy: reinterpret does not allocate native memory.
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    @Override
    public void copy(long address, byte[] into, int offset, int length) {
        MemorySegment.copy(ALL, ValueLayout.JAVA_BYTE, address, into, offset, length);
    }
}
