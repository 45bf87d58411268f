package io.sluice.app.report;

/** The version reports carry: the jar's Implementation-Version, or "development build" when run from classes. */
final class SluiceVersion {
    private SluiceVersion() {
    }

    static String get() {
        String version = SluiceVersion.class.getPackage().getImplementationVersion();
        return version == null ? "development build" : version;
    }
}
