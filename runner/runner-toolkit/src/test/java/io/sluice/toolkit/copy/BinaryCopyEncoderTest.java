package io.sluice.toolkit.copy;

import io.sluice.spi.error.ConnectorException;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BinaryCopyEncoderTest {
    @Test
    void encodesHeaderRowsAndTrailerAcrossSmallBufferFlushes() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int[] flushes = {0};
        BinaryCopyEncoder encoder = new BinaryCopyEncoder((b, off, len) -> {
            flushes[0]++;
            out.write(b, off, len);
        }, 64);
        String text = "héllo \uD83D\uDE00 wörld, and a string longer than the sixty-four byte buffer";
        encoder.startRow(3);
        encoder.writeInt8(42L);
        encoder.writeText(text);
        encoder.writeNull();
        encoder.startRow(3);
        encoder.writeInt4(-7);
        encoder.writeBoolean(true);
        encoder.writeFloat8(1.5);
        assertEquals(2, encoder.finish());

        DataInputStream in = new DataInputStream(new ByteArrayInputStream(out.toByteArray()));
        byte[] signature = new byte[11];
        in.readFully(signature);
        assertArrayEquals("PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1), signature);
        assertEquals(0, in.readInt());
        assertEquals(0, in.readInt());
        assertEquals(3, in.readShort());
        assertEquals(8, in.readInt());
        assertEquals(42L, in.readLong());
        byte[] expected = text.getBytes(StandardCharsets.UTF_8);
        assertEquals(expected.length, in.readInt());
        byte[] actual = new byte[expected.length];
        in.readFully(actual);
        assertArrayEquals(expected, actual);
        assertEquals(-1, in.readInt());
        assertEquals(3, in.readShort());
        assertEquals(4, in.readInt());
        assertEquals(-7, in.readInt());
        assertEquals(1, in.readInt());
        assertEquals(1, in.readByte());
        assertEquals(8, in.readInt());
        assertEquals(1.5, in.readDouble());
        assertEquals(-1, in.readShort());
        assertEquals(-1, in.read());
        assertEquals(true, flushes[0] > 1, "a 64-byte buffer must flush more than once");
    }

    @Test
    void refusesRowsWithTheWrongFieldCount() throws IOException, ConnectorException {
        BinaryCopyEncoder encoder = new BinaryCopyEncoder((b, off, len) -> { });
        encoder.startRow(1);
        encoder.writeInt4(1);
        assertThrows(IllegalStateException.class, () -> encoder.writeInt4(2));
        encoder.startRow(2);
        encoder.writeNull();
        assertThrows(IllegalStateException.class, encoder::finish);
    }

    /**
     * Keeping rows whole, every flush says how many tuples it holds and ends where one ends (rows taken back
     * included), and the trailer comes alone: a writer can trust the counts instead of walking the bytes.
     */
    @Test
    void rowsKeptWholeGoOutWithTheirCountAndTheTrailerAlone() throws Exception {
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        java.util.List<int[]> calls = new java.util.ArrayList<>(); // {length, rows}; rows -1: a plain write
        io.sluice.spi.data.CopySink sink = new io.sluice.spi.data.CopySink() {
            @Override
            public void write(byte[] b, int off, int len) {
                calls.add(new int[] {len, -1});
                rows.write(b, off, len);
            }

            @Override
            public void writeRows(byte[] b, int off, int len, int count) {
                calls.add(new int[] {len, count});
                rows.write(b, off, len);
            }
        };
        BinaryCopyEncoder encoder = new BinaryCopyEncoder(sink, 64);
        encoder.keepRowsWhole();
        int kept = 0;
        for (int i = 0; i < 200; i++) {
            encoder.startRow(2);
            encoder.writeInt4(i);
            encoder.writeText("x".repeat(i % 37));
            if (i % 9 == 4) {
                encoder.discardRow();
            } else {
                kept++;
            }
        }
        assertEquals(kept, encoder.finish());
        assertArrayEquals(new int[] {2, -1}, calls.getLast(), "the trailer alone, last");
        byte[] bytes = rows.toByteArray();
        int at = 19; // the header
        int counted = 0;
        int offset = 0;
        for (int[] call : calls.subList(0, calls.size() - 1)) {
            int end = offset + call[0];
            int tuples = 0;
            while (at < end) {
                int fields = ((bytes[at] & 0xFF) << 8) | (bytes[at + 1] & 0xFF);
                at += 2;
                for (int f = 0; f < fields; f++) {
                    int size = ((bytes[at] & 0xFF) << 24) | ((bytes[at + 1] & 0xFF) << 16)
                            | ((bytes[at + 2] & 0xFF) << 8) | (bytes[at + 3] & 0xFF);
                    at += 4 + Math.max(size, 0);
                }
                tuples++;
            }
            assertEquals(end, at, "a flush ends where a tuple ends");
            assertEquals(call[1], tuples, "a flush's count is its tuples");
            counted += tuples;
            offset = end;
        }
        assertEquals(kept, counted);
    }
}
