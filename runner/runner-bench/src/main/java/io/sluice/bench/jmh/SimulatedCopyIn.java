package io.sluice.bench.jmh;

/**
 * Stands in for PgJDBC's {@code CopyIn.writeToCopy}: every call writes a 5-byte CopyData header and the payload into
 * an 8 KiB send buffer (PgBufferedOutputStream's default size), which "goes to the socket" when full. What it costs
 * per call is what the packing loop saves; no network is involved, so only the client's CPU is measured.
 */
final class SimulatedCopyIn {
    private static final int SEND_BUFFER = 8192;
    private final byte[] sendBuffer = new byte[SEND_BUFFER];
    private int position;
    private long flushed;
    private long calls;

    void writeToCopy(byte[] data, int offset, int length) {
        calls++;
        put((byte) 'd');
        put((byte) ((length + 4) >>> 24));
        put((byte) ((length + 4) >>> 16));
        put((byte) ((length + 4) >>> 8));
        put((byte) (length + 4));
        int at = offset;
        int left = length;
        while (left > 0) {
            if (position == SEND_BUFFER) {
                flush();
            }
            int n = Math.min(left, SEND_BUFFER - position);
            System.arraycopy(data, at, sendBuffer, position, n);
            position += n;
            at += n;
            left -= n;
        }
    }

    private void put(byte b) {
        if (position == SEND_BUFFER) {
            flush();
        }
        sendBuffer[position++] = b;
    }

    private void flush() {
        flushed += position;
        position = 0;
    }

    long bytesFlushed() {
        return flushed + position;
    }

    long calls() {
        return calls;
    }
}
