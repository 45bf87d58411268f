package io.sluice.toolkit.copy;

import io.sluice.spi.ConnectorException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.ByteArrayInputStream;
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
}
