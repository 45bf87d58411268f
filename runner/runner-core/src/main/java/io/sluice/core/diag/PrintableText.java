package io.sluice.core.diag;

import java.util.Locale;

/**
 * Text from the outside world (table names, server messages) made safe to print: control characters are written as
 * {@code \xNN}, so a table named with an escape sequence or a carriage return cannot act on a terminal or forge a
 * line of output.
 */
public final class PrintableText {
    private PrintableText() {
    }

    /** Every control character escaped, line feeds and tabs too: for a name printed inside a line. */
    public static String name(String text) {
        return escaped(text, false);
    }

    /** Control characters escaped but line feeds and tabs, which Sluice's own multi-line messages use. */
    public static String lines(String text) {
        return escaped(text, true);
    }

    private static String escaped(String text, boolean keepLines) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 && !(keepLines && (c == '\n' || c == '\t')) || c == 0x7f
                    || c >= 0x80 && c < 0xa0;
            if (control && out == null) {
                out = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (out != null) {
                out.append(control ? String.format(Locale.ROOT, "\\x%02x", (int) c) : String.valueOf(c));
            }
        }
        return out == null ? text : out.toString();
    }
}
