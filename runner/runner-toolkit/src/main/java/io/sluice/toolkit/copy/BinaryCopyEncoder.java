package io.sluice.toolkit.copy;

import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;

import static java.util.Objects.requireNonNull;

/**
 * Encodes tuples in PostgreSQL's binary COPY format into one reused buffer and hands full buffers to a
 * {@link CopySink}. No allocation per value. COPY accepts a stream split at any byte, so the buffer flushes whenever
 * it is full, not at row boundaries.
 *
 * <p>Usage: {@link #startRow(int)}, then exactly that many {@code write*}/{@link #writeNull()} calls, repeat, then
 * {@link #finish()}. Values are big-endian as the wire format says.
 */
public final class BinaryCopyEncoder {
    public static final int DEFAULT_BUFFER_BYTES = 1 << 16;
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    private final CopySink sink;
    private byte[] buffer;
    private int position;
    private long rows;
    private int fieldsLeft;
    private int rowStart; // where the current row began in the buffer
    private long rowAtStart; // the number of that row (rows before it)
    private long rowsSent; // rows the sink has, with keepRowsWhole
    private boolean rowAtomic;

    public BinaryCopyEncoder(CopySink sink) {
        this(sink, DEFAULT_BUFFER_BYTES);
    }

    public BinaryCopyEncoder(CopySink sink, int bufferBytes) {
        this.sink = requireNonNull(sink, "sink is null");
        if (bufferBytes < 64) {
            throw new IllegalArgumentException("bufferBytes too small: " + bufferBytes);
        }
        this.buffer = new byte[bufferBytes];
        System.arraycopy(SIGNATURE, 0, buffer, 0, SIGNATURE.length);
        position = SIGNATURE.length;
        putInt(0); // flags
        putInt(0); // header extension length
    }

    public void startRow(int fieldCount) throws ConnectorException {
        if (fieldsLeft != 0) {
            throw new IllegalStateException("previous row is missing " + fieldsLeft + " field(s)");
        }
        ensure(2);
        rowStart = position;
        rowAtStart = rows;
        putShort(fieldCount);
        fieldsLeft = fieldCount;
        rows++;
    }

    /**
     * Keeps each row whole in the buffer until it is complete, so {@link #discardRow()} can take it back: for a
     * reader that sets rows with a bad value aside. Costs a copy of the partial row at each flush. The rows then go
     * to the sink with {@link CopySink#writeRows}, the trailer on its own.
     */
    public void keepRowsWhole() {
        rowAtomic = true;
    }

    /** Takes back the row being written (after a value failed); needs {@link #keepRowsWhole()}. */
    public void discardRow() {
        if (!rowAtomic) {
            throw new IllegalStateException("discardRow needs keepRowsWhole()");
        }
        position = rowStart;
        fieldsLeft = 0;
        rows--;
    }

    /** Shortens the field written by {@link #reserveField} at {@code at} to {@code length} bytes (NULs stripped). */
    public void shrinkField(int at, int length) {
        position = at + length;
        buffer[at - 4] = (byte) (length >>> 24);
        buffer[at - 3] = (byte) (length >>> 16);
        buffer[at - 2] = (byte) (length >>> 8);
        buffer[at - 1] = (byte) length;
    }

    public void writeNull() throws ConnectorException {
        field(4);
        putInt(-1);
    }

    public void writeBoolean(boolean value) throws ConnectorException {
        field(5);
        putInt(1);
        buffer[position++] = (byte) (value ? 1 : 0);
    }

    public void writeInt2(short value) throws ConnectorException {
        field(6);
        putInt(2);
        putShort(value);
    }

    public void writeInt4(int value) throws ConnectorException {
        field(8);
        putInt(4);
        putInt(value);
    }

    public void writeInt8(long value) throws ConnectorException {
        field(12);
        putInt(8);
        putLong(value);
    }

    public void writeFloat4(float value) throws ConnectorException {
        writeInt4(Float.floatToRawIntBits(value));
    }

    public void writeFloat8(double value) throws ConnectorException {
        writeInt8(Double.doubleToRawLongBits(value));
    }

    /** A value whose binary form is already at hand (bytea, uuid, or a pre-encoded value). */
    public void writeBytes(byte[] value, int offset, int length) throws ConnectorException {
        field(4 + length);
        putInt(length);
        System.arraycopy(value, offset, buffer, position, length);
        position += length;
    }

    /** Text, varchar, json and friends: UTF-8 encoded straight into the buffer. */
    public void writeText(CharSequence value) throws ConnectorException {
        int chars = value.length();
        field(4 + chars * 3);
        int lengthAt = position;
        position += 4;
        int start = position;
        for (int i = 0; i < chars; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                buffer[position++] = (byte) c;
            } else if (c < 0x800) {
                buffer[position++] = (byte) (0xC0 | (c >> 6));
                buffer[position++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, value.charAt(++i));
                buffer[position++] = (byte) (0xF0 | (cp >> 18));
                buffer[position++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                buffer[position++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                buffer[position++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                if (Character.isSurrogate(c)) {
                    c = '\uFFFD'; // a lone surrogate is not valid UTF-8
                }
                buffer[position++] = (byte) (0xE0 | (c >> 12));
                buffer[position++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buffer[position++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        int length = position - start;
        buffer[lengthAt] = (byte) (length >>> 24);
        buffer[lengthAt + 1] = (byte) (length >>> 16);
        buffer[lengthAt + 2] = (byte) (length >>> 8);
        buffer[lengthAt + 3] = (byte) length;
    }

    /**
     * Starts a field of {@code length} bytes whose content the caller writes with the {@code put*} methods; for
     * composite encodings (numeric, arrays, timestamps) that know their size up front.
     */
    public void beginField(int length) throws ConnectorException {
        field(4 + length);
        putInt(length);
    }

    /**
     * Starts a field of {@code length} bytes that the caller copies into {@link #buffer()} at the returned offset: for
     * values that live outside the Java heap (e.g. in DuckDB's vectors), which would otherwise need a byte[] each.
     */
    public int reserveField(int length) throws ConnectorException {
        field(4 + length);
        putInt(length);
        int at = position;
        position += length;
        return at;
    }

    /** The buffer that {@link #reserveField} offsets point into; replaced by a later write that needs more room. */
    public byte[] buffer() {
        return buffer;
    }

    public void putShort(int value) {
        buffer[position++] = (byte) (value >>> 8);
        buffer[position++] = (byte) value;
    }

    public void putInt(int value) {
        buffer[position++] = (byte) (value >>> 24);
        buffer[position++] = (byte) (value >>> 16);
        buffer[position++] = (byte) (value >>> 8);
        buffer[position++] = (byte) value;
    }

    public void putLong(long value) {
        putInt((int) (value >>> 32));
        putInt((int) value);
    }

    public void putBytes(byte[] value, int offset, int length) {
        System.arraycopy(value, offset, buffer, position, length);
        position += length;
    }

    /** Writes the trailer and flushes. Returns the number of rows encoded. */
    public long finish() throws ConnectorException {
        if (fieldsLeft != 0) {
            throw new IllegalStateException("last row is missing " + fieldsLeft + " field(s)");
        }
        ensure(2);
        if (rowAtomic) {
            if (position > 0) {
                sink.writeRows(buffer, 0, position, Math.toIntExact(rows - rowsSent));
                rowsSent = rows;
            }
            position = 0;
        }
        putShort(-1);
        flush();
        return rows;
    }

    public long rows() {
        return rows;
    }

    private void field(int maxBytes) throws ConnectorException {
        if (fieldsLeft <= 0) {
            throw new IllegalStateException("more fields than startRow declared");
        }
        fieldsLeft--;
        ensure(maxBytes);
    }

    private void ensure(int bytes) throws ConnectorException {
        if (position + bytes <= buffer.length) {
            return;
        }
        if (rowAtomic) {
            // only the rows before the current one go out; it moves to the front, whole
            if (rowStart > 0) {
                sink.writeRows(buffer, 0, rowStart, Math.toIntExact(rowAtStart - rowsSent));
                rowsSent = rowAtStart;
                int partial = position - rowStart;
                System.arraycopy(buffer, rowStart, buffer, 0, partial);
                position = partial;
                rowStart = 0;
            }
            if (position + bytes > buffer.length) {
                buffer = java.util.Arrays.copyOf(buffer, Math.max(position + bytes, buffer.length * 2));
            }
            return;
        }
        flush();
        if (bytes > buffer.length) {
            // One value larger than the buffer: grow once for it; memory stays bounded by the largest value.
            buffer = new byte[Math.max(bytes, buffer.length * 2)];
        }
    }

    private void flush() throws ConnectorException {
        if (position > 0) {
            sink.write(buffer, 0, position);
            position = 0;
        }
    }
}
