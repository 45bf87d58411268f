package io.sluice.connector.duckdb;

import java.util.Arrays;

/**
 * A growable, reused byte array for values whose binary form is built before it is written (jsonb, arrays, blobs
 * decoded from hex). Big-endian like the COPY format. Not thread-safe.
 */
final class ScratchBytes {
    private byte[] bytes = new byte[256];
    private int length;

    void clear() {
        length = 0;
    }

    int length() {
        return length;
    }

    /** Drops everything after {@code newLength}. */
    void setLength(int newLength) {
        length = newLength;
    }

    byte[] array() {
        return bytes;
    }

    void putByte(int value) {
        ensure(1);
        bytes[length++] = (byte) value;
    }

    void putShort(int value) {
        ensure(2);
        bytes[length++] = (byte) (value >>> 8);
        bytes[length++] = (byte) value;
    }

    void putInt(int value) {
        ensure(4);
        bytes[length++] = (byte) (value >>> 24);
        bytes[length++] = (byte) (value >>> 16);
        bytes[length++] = (byte) (value >>> 8);
        bytes[length++] = (byte) value;
    }

    void putLong(long value) {
        putInt((int) (value >>> 32));
        putInt((int) value);
    }

    void putBytes(byte[] source, int offset, int count) {
        ensure(count);
        System.arraycopy(source, offset, bytes, length, count);
        length += count;
    }

    /** Overwrites 4 bytes at {@code at}, for lengths known only after their content was written. */
    void setInt(int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    void putUtf8(CharSequence value, int start, int end) {
        ensure((end - start) * 3);
        for (int i = start; i < end; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                bytes[length++] = (byte) c;
            } else if (c < 0x800) {
                bytes[length++] = (byte) (0xC0 | (c >> 6));
                bytes[length++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(value.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, value.charAt(++i));
                bytes[length++] = (byte) (0xF0 | (cp >> 18));
                bytes[length++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                bytes[length++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                bytes[length++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                char safe = Character.isSurrogate(c) ? '\uFFFD' : c;
                bytes[length++] = (byte) (0xE0 | (safe >> 12));
                bytes[length++] = (byte) (0x80 | ((safe >> 6) & 0x3F));
                bytes[length++] = (byte) (0x80 | (safe & 0x3F));
            }
        }
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
