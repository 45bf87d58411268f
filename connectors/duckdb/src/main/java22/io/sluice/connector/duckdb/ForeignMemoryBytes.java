package io.sluice.connector.duckdb;

import java.lang.foreign.MemorySegment;

/**
 * {@link NativeBytes} through the FFM API: no JNI call and no allocation per copy. Compiled with {@code --release 22}
 * (see the java22 profile of this module) and loaded by name only on a Java 22+ runtime. Not thread-safe: one per
 * reader.
 *
 * <p>Copies segment to segment. The segment-to-array overload looks up the array's element layout with a type switch
 * on every call, which a profile of a SF 10 load showed as a third of the reader's Java time.
 */
final class ForeignMemoryBytes implements NativeBytes {
    // A zero-length segment at address 0, resized per copy: reinterpret does not allocate native memory.
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private byte[] array;
    private MemorySegment arraySegment;

    @Override
    public void copy(long address, byte[] into, int offset, int length) {
        if (into != array) { // the COPY buffer: the same array until a value outgrows it
            array = into;
            arraySegment = MemorySegment.ofArray(into);
        }
        MemorySegment.copy(ALL, address, arraySegment, offset, length);
    }
}
