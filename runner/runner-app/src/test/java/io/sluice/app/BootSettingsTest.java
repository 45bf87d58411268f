package io.sluice.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BootSettingsTest {
    @TempDir
    Path folder;

    @Test
    void plainEnvironmentNeedsNoSpring() {
        Properties properties = new Properties();
        properties.setProperty("java.version", "21");
        assertFalse(new BootSettings(Map.of("PATH", "/usr/bin", "SLUICE_JAVA_OPTS", "-Xmx1g"), properties, folder)
                .present());
    }

    @Test
    void bootEnvironmentVariablesAndSystemPropertiesCount() {
        assertTrue(new BootSettings(Map.of("MANAGEMENT_PROMETHEUS_METRICS_EXPORT_PUSHGATEWAY_ENABLED", "true"),
                new Properties(), folder).present());
        assertTrue(new BootSettings(Map.of("SPRING_CONFIG_LOCATION", "/etc/sluice/"), new Properties(), folder)
                .present());
        Properties properties = new Properties();
        properties.setProperty("management.prometheus.metrics.export.pushgateway.enabled", "true");
        assertTrue(new BootSettings(Map.of(), properties, folder).present());
    }

    @Test
    void applicationFilesInBootsDefaultLocationsCount() throws Exception {
        Files.createDirectories(folder.resolve("config"));
        Files.writeString(folder.resolve("config/application.yaml"), "management: {}\n");
        assertTrue(new BootSettings(Map.of(), new Properties(), folder).present());
        Files.delete(folder.resolve("config/application.yaml"));
        Files.writeString(folder.resolve("application.properties"), "x=1\n");
        assertTrue(new BootSettings(Map.of(), new Properties(), folder).present());
    }
}
