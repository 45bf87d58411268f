package io.sluice.toolkit.compare;

import java.util.List;

/**
 * The order rows are listed in ({@link io.sluice.spi.data.HashedRows}): key texts compared by Unicode code point,
 * which is the byte order of their UTF-8 (PostgreSQL's {@code COLLATE "C"}); {@link String#compareTo} differs from it
 * beyond the Basic Multilingual Plane.
 */
public final class CodePointOrder {
    private CodePointOrder() {
    }

    public static int compare(List<String> a, List<String> b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            int c = compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    public static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
