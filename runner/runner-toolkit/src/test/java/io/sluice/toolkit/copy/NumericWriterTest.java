package io.sluice.toolkit.copy;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Decimal text into binary numeric, read back as PostgreSQL would: the same value and scale, in canonical form (no
 * zero digit groups at either end, sign only on non-zero values), for edge shapes and many random ones; and the
 * text path writes byte for byte what the BigDecimal path writes.
 */
class NumericWriterTest {
    @Test
    void decimalTextReadsBackAsTheSameValueAndScale() throws Exception {
        List<String> shapes = List.of("0", "-0", "0.00", "-0.000", "1", "-1", "10000", "9999", "12345678",
                "0.0001", "0.00001", "0.5", ".5", "-.25", "007", "+3.10", "18446744073709551615",
                "-9223372036854775808", "123456789012345678901234567890.123456789012345678901234567890",
                "0.000000000000000000000000000001", "100000000.00000001", "99999999999999999999.9999");
        for (String shape : shapes) {
            check(shape);
        }
        Random random = new Random(39);
        for (int i = 0; i < 20_000; i++) {
            BigDecimal value = new BigDecimal(new BigInteger(random.nextInt(130) + 1, random), random.nextInt(40));
            check(random.nextBoolean() ? value.negate().toPlainString() : value.toPlainString());
        }
    }

    @Test
    void notANumberIsRefusedAndAnExponentStillReads() throws Exception {
        assertThrows(NumberFormatException.class, () -> encode("12a"));
        assertThrows(NumberFormatException.class, () -> encode("-"));
        assertEquals(new BigDecimal("1.5E+3").setScale(0), decode(encode("1.5E+3")));
    }

    private static void check(String text) throws Exception {
        byte[] field = encode(text);
        BigDecimal expected = new BigDecimal(text);
        BigDecimal actual = decode(field);
        assertEquals(expected.setScale(Math.max(expected.scale(), 0)), actual, text);
        assertEquals(expected.scale() < 0 ? 0 : expected.scale(), actual.scale(), text);
        ByteBuffer b = ByteBuffer.wrap(field);
        int ndigits = b.getShort();
        b.getShort();
        int sign = b.getShort();
        b.getShort();
        if (ndigits > 0) {
            assertEquals(false, b.getShort(8) == 0 || b.getShort(8 + 2 * (ndigits - 1)) == 0, "canonical: " + text);
        } else {
            assertEquals(0, sign, "zero has no sign: " + text);
        }
        NumericWriter viaBigDecimal = new NumericWriter();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryCopyEncoder out = new BinaryCopyEncoder((buf, off, len) -> bytes.write(buf, off, len));
        out.startRow(1);
        viaBigDecimal.write(expected, out);
        out.finish();
        assertEquals(ByteBuffer.wrap(field), ByteBuffer.wrap(fieldOf(bytes.toByteArray())), "same bytes: " + text);
    }

    private static byte[] encode(String text) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryCopyEncoder out = new BinaryCopyEncoder((buf, off, len) -> bytes.write(buf, off, len));
        out.startRow(1);
        new NumericWriter().writeDecimal(text, out);
        out.finish();
        return fieldOf(bytes.toByteArray());
    }

    /** The one field of the one row: after the 19-byte header and the row's field count, length then bytes. */
    private static byte[] fieldOf(byte[] stream) {
        ByteBuffer b = ByteBuffer.wrap(stream);
        b.position(19 + 2);
        byte[] field = new byte[b.getInt()];
        b.get(field);
        return field;
    }

    private static BigDecimal decode(byte[] field) {
        ByteBuffer b = ByteBuffer.wrap(field);
        int ndigits = b.getShort();
        int weight = b.getShort();
        int sign = b.getShort();
        int dscale = b.getShort();
        BigDecimal value = BigDecimal.ZERO;
        for (int i = 0; i < ndigits; i++) {
            value = value.add(BigDecimal.valueOf(b.getShort()).scaleByPowerOfTen(4 * (weight - i)));
        }
        value = value.setScale(dscale);
        return sign == 0x4000 ? value.negate() : value;
    }
}
