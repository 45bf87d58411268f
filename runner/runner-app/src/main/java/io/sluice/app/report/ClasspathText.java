package io.sluice.app.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A UTF-8 text resource shipped in the jar (page templates, the charting library). */
public final class ClasspathText {
    private ClasspathText() {
    }

    /** The resource {@code name} (absolute, e.g. {@code /io/sluice/app/report/run-report.html}); missing is a bug. */
    public static String read(String name) {
        try (InputStream in = ClasspathText.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " (a broken build?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
