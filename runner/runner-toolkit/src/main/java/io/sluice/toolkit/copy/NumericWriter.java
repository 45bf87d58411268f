package io.sluice.toolkit.copy;

import io.sluice.spi.error.ConnectorException;

import java.math.BigDecimal;

/**
 * Writes PostgreSQL's binary {@code numeric}: ndigits, weight (of the first base-10000 digit), sign, dscale, then the
 * base-10000 digits, the highest first. From decimal text (what MySQL's and most drivers' text protocols give) it
 * reads the digits in place, with no allocation per value; a {@link BigDecimal} goes through its plain text. Keeps
 * its digit groups between values: one per reader, not thread-safe.
 */
public final class NumericWriter {
    private short[] groups = new short[8];

    /** Writes {@code value} as one field. */
    public void write(BigDecimal value, BinaryCopyEncoder out) throws ConnectorException {
        writeDecimal(value.toPlainString(), out);
    }

    /**
     * Writes plain decimal text ({@code -12.340}, {@code .5}, {@code 007}: an optional sign, digits, an optional
     * point and fraction) as one field, its scale the fraction's digits. Anything else (an exponent, a stray
     * character) goes through {@link BigDecimal}, which refuses what is not a number.
     */
    public void writeDecimal(CharSequence text, BinaryCopyEncoder out) throws ConnectorException {
        int n = text.length();
        int i = 0;
        boolean negative = false;
        if (n > 0 && (text.charAt(0) == '-' || text.charAt(0) == '+')) {
            negative = text.charAt(0) == '-';
            i = 1;
        }
        int dot = n;
        int digitsSeen = 0;
        for (int p = i; p < n; p++) {
            char c = text.charAt(p);
            if (c == '.' && dot == n) {
                dot = p;
            } else if (c >= '0' && c <= '9') {
                digitsSeen++;
            } else {
                write(new BigDecimal(text.toString()), out); // an exponent, or not a number (which throws)
                return;
            }
        }
        if (digitsSeen == 0) {
            throw new NumberFormatException("not a decimal: '" + text + "'");
        }
        int intStart = i;
        while (intStart < dot && text.charAt(intStart) == '0') {
            intStart++; // leading zeros carry nothing
        }
        int intDigits = dot - intStart;
        int dscale = dot == n ? 0 : n - dot - 1;
        int leftPad = (4 - intDigits % 4) % 4;
        int intGroups = (intDigits + leftPad) / 4;
        int count = intGroups + (dscale + 3) / 4;
        if (groups.length < count) {
            groups = new short[count];
        }
        int first = -1;
        int last = 0;
        for (int g = 0; g < count; g++) {
            int group = 0;
            for (int k = 0; k < 4; k++) {
                int v = g * 4 + k - leftPad; // position among the integer digits, then the fraction's
                int digit = 0;
                if (v >= 0 && v < intDigits) {
                    digit = text.charAt(intStart + v) - '0';
                } else if (v >= intDigits && v - intDigits < dscale) {
                    digit = text.charAt(dot + 1 + v - intDigits) - '0';
                }
                group = group * 10 + digit;
            }
            groups[g] = (short) group;
            if (group != 0) {
                if (first < 0) {
                    first = g;
                }
                last = g + 1;
            }
        }
        if (first < 0) { // zero, whatever its sign
            out.beginField(8);
            out.putShort(0);
            out.putShort(0);
            out.putShort(0);
            out.putShort(dscale);
            return;
        }
        int ndigits = last - first;
        out.beginField(8 + 2 * ndigits);
        out.putShort(ndigits);
        out.putShort(intGroups - 1 - first);
        out.putShort(negative ? 0x4000 : 0);
        out.putShort(dscale);
        for (int g = first; g < last; g++) {
            out.putShort(groups[g]);
        }
    }
}
