package io.sluice.toolkit.copy;

import io.sluice.spi.ConnectorException;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Writes PostgreSQL's binary {@code numeric} from a {@link BigDecimal}: ndigits, weight (of the first base-10000
 * digit), sign, dscale, then the base-10000 digits, the highest first. Keeps its digit groups between values: one per
 * reader, not thread-safe.
 */
public final class NumericWriter {
    private short[] groups = new short[8];

    /** Writes {@code value} as one field. */
    public void write(BigDecimal value, BinaryCopyEncoder out) throws ConnectorException {
        int dscale = Math.max(value.scale(), 0);
        BigInteger unscaled = value.setScale(dscale).unscaledValue();
        int sign = unscaled.signum() < 0 ? 0x4000 : 0;
        String digits = unscaled.abs().toString();
        if (unscaled.signum() == 0) {
            out.beginField(8);
            out.putShort(0);
            out.putShort(0);
            out.putShort(0);
            out.putShort(dscale);
            return;
        }
        // Pad the integer part on the left and the fraction on the right to whole groups of four digits.
        int intDigits = digits.length() - dscale;
        int leftPad = intDigits > 0 ? (4 - intDigits % 4) % 4 : 0;
        int fracDigits = dscale;
        StringBuilder all = new StringBuilder(digits.length() + 8);
        all.append("0".repeat(leftPad));
        if (intDigits < 0) {
            // 0.000ddd: the fraction starts with zeros the unscaled digits do not show
            all.append("0".repeat(-intDigits));
        }
        all.append(digits);
        all.append("0".repeat((4 - fracDigits % 4) % 4));
        int intGroups = intDigits > 0 ? (intDigits + leftPad) / 4 : 0;
        int count = all.length() / 4;
        if (groups.length < count) {
            groups = new short[count];
        }
        for (int g = 0; g < count; g++) {
            groups[g] = Short.parseShort(all.substring(g * 4, g * 4 + 4));
        }
        int first = 0;
        while (first < count && groups[first] == 0) {
            first++;
        }
        int last = count;
        while (last > first && groups[last - 1] == 0) {
            last--;
        }
        int weight = intGroups - 1 - first;
        int ndigits = last - first;
        out.beginField(8 + 2 * ndigits);
        out.putShort(ndigits);
        out.putShort(weight);
        out.putShort(sign);
        out.putShort(dscale);
        for (int g = first; g < last; g++) {
            out.putShort(groups[g]);
        }
    }
}
