package io.sluice.app.output;

import java.util.Locale;

/** How sizes, counts and rates read in text output: grouped digits, MB with one decimal. */
final class Numbers {
    private Numbers() {
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    static String rate(double perSecond, String unit) {
        return String.format(Locale.ROOT, "%,.0f %s/s", perSecond, unit);
    }

    static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
