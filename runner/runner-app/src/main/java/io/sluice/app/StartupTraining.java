package io.sluice.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * What the JVM that records the start-up cache does (docs/operations.md, "Start-up"). The launcher starts it after the
 * first successful {@code plan} or {@code run}, with {@code -Dsluice.startup-training=FOLDER} (a folder it removes
 * afterwards) and a clean environment (no telemetry, lineage or Boot settings of the user's reach it), its output
 * discarded. It:
 * <ul>
 *   <li>plans and runs a small real pipeline in that folder: 1,000 rows from one database of an embedded PostgreSQL
 *   to another, and 1,000 rows of a DuckDB query, with a state folder of its own. The cache then holds what a run
 *   uses, linked and profiled: a one-table run started 0.18 s of 0.66 s sooner than with a cache recorded by the
 *   user's plan (docs/benchmarks.md, "Start-up"), for about 5 s, once;</li>
 *   <li>loads (without initialising) every class of Sluice's jars and PgJDBC's, so that the cache has what any
 *   command needs of them.</li>
 * </ul>
 * Both are best effort: a pipeline that cannot run here (no embedded server) leaves the classes loaded.
 */
final class StartupTraining {
    static final String PROPERTY = "sluice.startup-training";
    private static final String SPEC = "training.yaml";
    private static final String SOURCE_SCRIPT = "training-source.sql";

    private StartupTraining() {
    }

    /** Whether this JVM is the one that records the cache (the launcher gave it a folder). */
    static boolean wanted() {
        return !System.getProperty(PROPERTY, "").isBlank();
    }

    static void train() {
        runPipeline(Path.of(System.getProperty(PROPERTY)));
        loadClasses();
    }

    private static void runPipeline(Path folder) {
        try {
            Files.createDirectories(folder);
            for (String resource : List.of(SPEC, SOURCE_SCRIPT)) {
                try (InputStream in = StartupTraining.class.getResourceAsStream("training/" + resource)) {
                    if (in == null) {
                        return;
                    }
                    Files.copy(in, folder.resolve(resource), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            String spec = folder.resolve(SPEC).toString();
            String state = folder.resolve("state").toString();
            SluiceMain.execute(new String[] {"plan", "--state-dir", state, spec});
            SluiceMain.execute(new String[] {"run", "--state-dir", state, spec});
        } catch (IOException | RuntimeException e) {
            // no pipeline here: the cache keeps the classes loaded below
        }
    }

    /** Loads the classes. Best effort: a class that does not load is left out of the cache. */
    private static void loadClasses() {
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
