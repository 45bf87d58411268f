package io.sluice.toolkit.plugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The plugins folder: jars a user adds without rebuilding Sluice, third-party connectors (found like the built-in
 * ones, by ServiceLoader) and JDBC drivers (for {@code type: jdbc}). The folder is {@code $SLUICE_PLUGINS}, else the
 * system property {@code sluice.plugins} (the launchers set it to {@code plugins/} beside them); a folder that does
 * not exist holds nothing. Every {@code *.jar} directly in it is loaded, in name order, by one class loader whose
 * parent is Sluice's own: a plugin sees the SPI, and cannot replace a class Sluice ships.
 */
public final class Plugins {
    private static volatile ClassLoader loader;

    private Plugins() {
    }

    /** The folder plugins are loaded from, when one is set. */
    public static Optional<Path> folder() {
        String dir = System.getenv("SLUICE_PLUGINS");
        if (dir == null || dir.isBlank()) {
            dir = System.getProperty("sluice.plugins");
        }
        return dir == null || dir.isBlank() ? Optional.empty() : Optional.of(Path.of(dir));
    }

    /** The jars of the plugins folder, in name order; empty when there is none. */
    public static List<Path> jars() {
        Optional<Path> folder = folder();
        if (folder.isEmpty() || !Files.isDirectory(folder.get())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder.get())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar")).filter(Files::isRegularFile)
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the plugins folder " + folder.get(), e);
        }
    }

    /** The class loader over the plugins' jars (Sluice's own when there are none); made once per process. */
    public static ClassLoader classLoader() {
        ClassLoader known = loader;
        if (known != null) {
            return known;
        }
        synchronized (Plugins.class) {
            if (loader == null) {
                ClassLoader parent = Plugins.class.getClassLoader();
                List<Path> jars = jars();
                if (jars.isEmpty()) {
                    loader = parent;
                } else {
                    List<URL> urls = new ArrayList<>();
                    for (Path jar : jars) {
                        try {
                            urls.add(jar.toUri().toURL());
                        } catch (MalformedURLException e) {
                            throw new IllegalStateException("plugin jar " + jar + " has no URL", e);
                        }
                    }
                    loader = new URLClassLoader("sluice-plugins", urls.toArray(URL[]::new), parent);
                }
            }
            return loader;
        }
    }
}
