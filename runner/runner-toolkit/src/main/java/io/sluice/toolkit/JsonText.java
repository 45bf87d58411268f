package io.sluice.toolkit;

/** JSON text for the few places a connector writes JSON without a JSON library (a rejected row's values). */
public final class JsonText {
    private JsonText() {
    }

    /**
     * {@code value} as a JSON value: a string literal, or, for text holding NUL characters (which PostgreSQL's jsonb
     * cannot hold), {@code {"split-at-nul": ["a", "b"]}}, the parts between them: read back unambiguously, where an
     * escape such as the two characters {@code \0} would read like a value that holds them.
     */
    public static String value(String value) {
        if (value.indexOf('\0') < 0) {
            return quote(value);
        }
        StringBuilder out = new StringBuilder("{\"split-at-nul\": [");
        String[] parts = value.split("\0", -1);
        for (int i = 0; i < parts.length; i++) {
            out.append(i == 0 ? "" : ", ").append(quote(parts[i]));
        }
        return out.append("]}").toString();
    }

    /**
     * {@code value} as a JSON string literal, quotes included; control characters escaped. For names: a NUL, which
     * jsonb cannot hold, becomes U+FFFD ({@link #value} writes values that hold one).
     */
    public static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\0' -> out.append("\\ufffd"); // a name's; jsonb cannot hold U+0000
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
