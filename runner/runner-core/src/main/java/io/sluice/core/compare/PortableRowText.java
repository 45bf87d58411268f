package io.sluice.core.compare;

/**
 * A {@link io.sluice.spi.data.RowHash#PORTABLE} row text ({@code <characters>:<text>} or {@code N} per value, joined by
 * commas) shown as a row is shown by PostgreSQL's hash: {@code (v1,v2,)}, an empty place for NULL.
 */
final class PortableRowText {
    private PortableRowText() {
    }

    static String display(String text) {
        StringBuilder out = new StringBuilder("(");
        int i = 0;
        boolean first = true;
        while (i < text.length()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            if (text.charAt(i) == 'N') {
                i += 2; // N and its comma
                continue;
            }
            int colon = text.indexOf(':', i);
            if (colon < 0) {
                return text; // not a row text: shown as it came
            }
            int characters = Integer.parseInt(text, i, colon, 10);
            int end = text.offsetByCodePoints(colon + 1, characters);
            out.append(text, colon + 1, end);
            i = end + 1;
        }
        return out.append(')').toString();
    }
}
