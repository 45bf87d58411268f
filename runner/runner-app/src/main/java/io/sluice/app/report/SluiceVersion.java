package io.sluice.app.report;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of this build, from one place: the jar's Implementation-Version (the root pom's {@code <version>}), or
 * "development build" when run from classes; and the commit the build recorded ({@code sluice-git.properties}).
 */
public final class SluiceVersion {
    private SluiceVersion() {
    }

    public static String get() {
        String version = SluiceVersion.class.getPackage().getImplementationVersion();
        return version == null ? "development build" : version;
    }

    /** {@code commit 55a24a1}, {@code -dirty} when the tree had uncommitted changes; {@code commit unknown} without. */
    public static String commit() {
        Properties git = new Properties();
        try (InputStream in = SluiceVersion.class.getResourceAsStream("/sluice-git.properties")) {
            if (in != null) {
                git.load(in);
            }
        } catch (IOException e) {
            return "commit unknown";
        }
        String id = git.getProperty("git.commit.id.abbrev", "");
        return id.isEmpty() ? "commit unknown"
                : "commit " + id + ("true".equals(git.getProperty("git.dirty")) ? "-dirty" : "");
    }
}
