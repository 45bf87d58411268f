package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Writes PostgreSQL's binary {@code numeric}: ndigits, weight (of the first base-10000 digit), sign, dscale, then the
 * base-10000 digits, most significant first. The unscaled-long path allocates nothing (one reused digit array);
 * wider values go through their decimal string. Not thread-safe: one per column encoder.
 */
final class PgNumericWriter {
    private static final int POSITIVE = 0x0000;
    private static final int NEGATIVE = 0x4000;
    private static final int NAN = 0xC000;
    private static final int PINF = 0xD000;
    private static final int NINF = 0xF000;
    private static final int[] POW10 = {1, 10, 100, 1000, 10000};

    private short[] groups = new short[16];
    private int ndigits;
    private int weight;
    private int sign;
    private int dscale;
    private int high;

    /** {@code unscaled * 10^-scale}, scale 0..38. */
    void write(long unscaled, int scale, BinaryCopyEncoder out) throws ConnectorException {
        compute(unscaled, scale);
        emit(out);
    }

    void write(long unscaled, int scale, ScratchBytes out) {
        compute(unscaled, scale);
        emit(out);
    }

    void write(BigDecimal value, BinaryCopyEncoder out) throws ConnectorException {
        compute(value);
        emit(out);
    }

    void write(BigDecimal value, ScratchBytes out) {
        compute(value);
        emit(out);
    }

    private void compute(long unscaled, int scale) {
        if (unscaled == 0) {
            header(0, 0, POSITIVE, scale);
            return;
        }
        int sign = unscaled < 0 ? NEGATIVE : POSITIVE;
        long rest = unscaled < 0 ? -unscaled : unscaled; // Long.MIN_VALUE stays negative: read as unsigned
        int fracGroups = (scale + 3) / 4;
        int pad = fracGroups * 4 - scale;
        int count = 0;
        // Lowest group first. The first group is shifted left by the padding that aligns the fraction to 4 digits.
        int firstDivisor = POW10[4 - pad];
        groups[count++] = (short) (Long.remainderUnsigned(rest, firstDivisor) * POW10[pad]);
        rest = Long.divideUnsigned(rest, firstDivisor);
        while (rest != 0) {
            groups[count++] = (short) (rest % 10000);
            rest /= 10000;
        }
        // Groups beyond the scale's fraction groups are zero-padded fraction: pad with zeros up to the point.
        while (count < fracGroups) {
            groups[count++] = 0;
        }
        trim(count, fracGroups, sign, scale);
    }

    private void compute(BigDecimal value) {
        int scale = Math.max(value.scale(), 0);
        BigInteger unscaled = value.setScale(scale).unscaledValue();
        if (unscaled.bitLength() < 64) {
            compute(unscaled.longValue(), scale);
            return;
        }
        String digits = unscaled.abs().toString();
        int fracGroups = (scale + 3) / 4;
        int pad = fracGroups * 4 - scale;
        int total = digits.length() + pad;
        int count = (total + 3) / 4;
        if (groups.length < Math.max(count, fracGroups)) {
            groups = new short[Math.max(count, fracGroups) * 2];
        }
        // Walk the digits right to left, padded on the right by `pad` zeros.
        for (int g = 0; g < count; g++) {
            int v = 0;
            for (int k = 3; k >= 0; k--) {
                int pos = total - 1 - (g * 4 + k); // position in padded string, from the left
                int d = pos >= 0 && pos < digits.length() ? digits.charAt(pos) - '0' : 0;
                v = v * 10 + d;
            }
            groups[g] = (short) v;
        }
        while (count < fracGroups) {
            groups[count++] = 0;
        }
        trim(count, fracGroups, unscaled.signum() < 0 ? NEGATIVE : POSITIVE, scale);
    }

    void write(double value, BinaryCopyEncoder out) throws ConnectorException {
        if (Double.isNaN(value)) {
            header(0, 0, NAN, 0);
        } else if (Double.isInfinite(value)) {
            header(0, 0, value > 0 ? PINF : NINF, 0);
        } else {
            compute(BigDecimal.valueOf(value));
        }
        emit(out);
    }

    /** groups[0..count) lowest first; the lowest fracGroups are the fraction. Drops zero groups at both ends. */
    private void trim(int count, int fracGroups, int sign, int scale) {
        int top = count - 1;
        while (top >= 0 && groups[top] == 0) {
            top--;
        }
        if (top < 0) {
            header(0, 0, POSITIVE, scale);
            return;
        }
        int low = 0;
        while (groups[low] == 0) {
            low++;
        }
        header(top - low + 1, top - fracGroups, sign, scale);
        high = top;
    }

    private void header(int ndigits, int weight, int sign, int dscale) {
        this.ndigits = ndigits;
        this.weight = weight;
        this.sign = sign;
        this.dscale = dscale;
    }

    private void emit(BinaryCopyEncoder out) throws ConnectorException {
        out.beginField(8 + 2 * ndigits);
        out.putShort(ndigits);
        out.putShort(weight);
        out.putShort(sign);
        out.putShort(dscale);
        for (int g = high, n = 0; n < ndigits; g--, n++) {
            out.putShort(groups[g]);
        }
    }

    /** The same value as an array element: length, then the body. */
    private void emit(ScratchBytes out) {
        out.putInt(8 + 2 * ndigits);
        out.putShort(ndigits);
        out.putShort(weight);
        out.putShort(sign);
        out.putShort(dscale);
        for (int g = high, n = 0; n < ndigits; g--, n++) {
            out.putShort(groups[g]);
        }
    }
}
