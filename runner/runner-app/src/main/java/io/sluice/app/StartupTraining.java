package io.sluice.app;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The launcher records the start-up cache with a {@code plan} (a recording JVM copies slowly, so never a run), and
 * the cache holds only the classes that JVM loaded: a run then loaded its executor, ledger and COPY classes, about 250
 * of Sluice's own and PgJDBC's, from the jars, parsing and verifying each. With {@code -Dsluice.startup-training=true}
 * (the recording JVM only) the plan also loads, without initialising, every class of Sluice's jars and PgJDBC's, so
 * the cache has what any command needs of them.
 */
final class StartupTraining {
    static final String PROPERTY = "sluice.startup-training";

    private StartupTraining() {
    }

    static boolean wanted() {
        return Boolean.getBoolean(PROPERTY);
    }

    /** Loads the classes. Best effort: a class that does not load is left out of the cache. */
    static void loadClasses() {
        ClassLoader loader = StartupTraining.class.getClassLoader();
        for (Path jar : jars()) {
            try (JarFile file = new JarFile(jar.toFile())) {
                for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                    String name = entries.nextElement().getName();
                    if (!name.endsWith(".class") || name.startsWith("META-INF/") || name.endsWith("module-info.class")
                            || name.endsWith("package-info.class")) {
                        continue;
                    }
                    try {
                        Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                    } catch (ClassNotFoundException | LinkageError e) {
                        // an optional dependency's class missing: that class stays out of the cache
                    }
                }
            } catch (IOException e) {
                // a jar that cannot be read is not cached; the command already ran
            }
        }
    }

    /** The application's jar and, beside it in lib/, Sluice's module jars and PgJDBC's (the extracted layout). */
    private static List<Path> jars() {
        List<Path> jars = new ArrayList<>();
        try {
            Path app = Path.of(StartupTraining.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(app)) {
                return jars; // classes from a folder (tests, an IDE): nothing is recorded there
            }
            jars.add(app);
            Path lib = app.resolveSibling("lib");
            if (Files.isDirectory(lib)) {
                try (DirectoryStream<Path> found = Files.newDirectoryStream(lib, "{sluice-,postgresql-}*.jar")) {
                    found.forEach(jars::add);
                }
            }
        } catch (IOException | java.net.URISyntaxException | RuntimeException e) {
            // no code source to read: the cache keeps what the command loaded
        }
        return jars;
    }
}
