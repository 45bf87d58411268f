package io.sluice.toolkit;

/** JSON text for the few places a connector writes JSON without a JSON library (a rejected row's values). */
public final class JsonText {
    private JsonText() {
    }

    /**
     * {@code value} as a JSON string literal, quotes included; control characters escaped, and a NUL as the two
     * characters {@code \0} (PostgreSQL's jsonb cannot hold U+0000).
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
                case '\0' -> out.append("\\\\0");
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
