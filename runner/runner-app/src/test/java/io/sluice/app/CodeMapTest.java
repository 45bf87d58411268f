package io.sluice.app;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map of the code in docs/development.md, held against the code: which package of {@code io.sluice} may import
 * which. An import outside the map, a package the map does not list (or lists but the code does not have), and rules
 * that make a cycle all fail, so the map stays true and no package import runs back up.
 */
class CodeMapTest {
    private static final Path ROOT = Path.of("../..");
    private static final String PREFIX = "io.sluice.";
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)(\\.\\*)?;", Pattern.MULTILINE);

    @Test
    void everyImportIsOneTheMapAllowsAndTheMapHasNoCycle() throws IOException {
        Map<String, Set<String>> allowed = map();
        Map<String, Set<String>> actual = imports();
        List<String> problems = new ArrayList<>();
        for (String pkg : actual.keySet()) {
            if (!allowed.containsKey(pkg)) {
                problems.add("package " + pkg + " is not in the map");
                continue;
            }
            for (String imported : actual.get(pkg)) {
                if (!allowed.get(pkg).contains(imported)) {
                    problems.add(pkg + " imports " + imported + ", which the map does not allow");
                }
            }
        }
        for (String pkg : allowed.keySet()) {
            if (!actual.containsKey(pkg)) {
                problems.add("the map lists " + pkg + ", which no main source file declares");
            }
        }
        cycle(allowed).ifPresent(c -> problems.add("the map's rules make a cycle: " + c));
        assertEquals(List.of(), problems, "docs/development.md's code map and the code differ");
    }

    /**
     * A project class named in full outside an import line uses its package without an import the map reads: every
     * such name in main code (comments and string literals aside) is a failure. So is a package named like a build
     * folder, which tools that skip build output skip too.
     */
    @Test
    void mainCodeNamesProjectClassesThroughImportsAndNoPackageIsNamedLikeABuildFolder() throws IOException {
        Pattern full = Pattern.compile("\\bio\\.sluice\\.(?:[a-z][a-z0-9_]*\\.)+[A-Z]\\w*");
        List<String> problems = new ArrayList<>();
        for (Path file : mainSources()) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.startsWith("import ") || line.startsWith("package ") || line.startsWith("*")
                        || line.startsWith("/*") || line.startsWith("//")) {
                    continue;
                }
                Matcher m = full.matcher(line);
                while (m.find()) {
                    if (line.substring(0, m.start()).chars().filter(c -> c == '"').count() % 2 == 0) {
                        problems.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + m.group());
                    }
                }
            }
            for (Path part : ROOT.relativize(file)) {
                if (Set.of("target", "build", "out").contains(part.toString())) {
                    problems.add(ROOT.relativize(file) + ": a package named like a build folder");
                }
            }
        }
        assertEquals(List.of(), problems, "import the class (a clash of simple names: rename one)");
    }

    /**
     * The compiled classes, read with jdeps, depend across packages only as the map allows: whatever way the source
     * names a class (an import, a name in full, an inferred type), the bytecode holds the edge. Classes without a
     * source file (left in a build folder by a class since removed) are not the code's.
     */
    @Test
    void theBytecodeDependsOnlyAsTheMapAllows() throws IOException {
        List<String> args = new ArrayList<>(List.of("-verbose:class", "-e", "io\\.sluice\\..*"));
        List<Path> sourceRoots = new ArrayList<>();
        for (String module : modules()) {
            Path classes = ROOT.resolve(module).resolve("target/classes");
            Path sources = ROOT.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(sources)) {
                continue;
            }
            sourceRoots.add(sources);
            if (Files.isDirectory(classes.resolve("io/sluice"))) {
                args.add(classes.toString());
            } else if (!AFTER_THIS_MODULE.contains(module)) {
                throw new AssertionError(module + " is not compiled: build the project first (./mvnw install)");
            }
        }
        String dependencies = jdeps(args);
        Map<String, Set<String>> allowed = map();
        Pattern edge = Pattern.compile("^\\s+(io\\.sluice\\.[\\w.$]+)\\s+->\\s+(io\\.sluice\\.[\\w.$]+)\\s",
                Pattern.MULTILINE);
        Set<String> problems = new TreeSet<>();
        int edges = 0;
        Matcher m = edge.matcher(dependencies);
        while (m.find()) {
            String from = m.group(1);
            String to = m.group(2);
            if (!hasSource(from, sourceRoots)) {
                continue;
            }
            edges++;
            String fromPackage = packageOf(from);
            String toPackage = packageOf(to);
            if (!fromPackage.equals(toPackage)
                    && !allowed.getOrDefault(fromPackage, Set.of()).contains(toPackage)) {
                problems.add(fromPackage + " -> " + toPackage + " (" + from + " uses " + to + ")");
            }
        }
        assertTrue(edges > 1000, "jdeps reported " + edges + " dependencies; expected the whole project's");
        assertEquals(List.of(), List.copyOf(problems), "the bytecode depends where docs/development.md's map does "
                + "not allow");
    }

    /**
     * jdeps' report: the test JVM's own tool, or, on a bare Java runtime (CI tests on one to prove Java 21 is enough),
     * the one of the JDK Maven runs on ({@code sluice.build.jdk}).
     */
    private static String jdeps(List<String> args) throws IOException {
        Optional<ToolProvider> tool = ToolProvider.findFirst("jdeps");
        if (tool.isPresent()) {
            java.io.StringWriter out = new java.io.StringWriter();
            java.io.StringWriter err = new java.io.StringWriter();
            int code = tool.get().run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
                    args.toArray(String[]::new));
            assertEquals(0, code, "jdeps failed: " + err);
            return out.toString();
        }
        Path executable = Path.of(System.getProperty("sluice.build.jdk", ""), "bin", "jdeps");
        assertTrue(Files.isExecutable(executable), "the test JVM has no jdeps, and neither has " + executable
                + ": run the tests with a JDK 21+ (or set sluice.build.jdk to one)");
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            assertEquals(0, process.waitFor(), "jdeps failed: " + out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for jdeps", e);
        }
        return out;
    }

    /** Modules the reactor builds after this one: their classes may not exist yet when its tests run. */
    private static final Set<String> AFTER_THIS_MODULE = Set.of("runner/runner-bench", "runner/runner-dist",
            "runner/runner-image");

    /**
     * A main source file longer than 450 lines says why on its first line ({@code // Over 450 lines: <reason>}), so
     * a long file is a decision, not drift.
     */
    @Test
    void noMainFileIsOver450LinesWithoutAReasonOnItsFirstLine() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : mainSources()) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.size() > 450 && !(lines.getFirst().startsWith(LONG_FILE_REASON)
                    && lines.getFirst().length() > LONG_FILE_REASON.length() + 20)) {
                problems.add(ROOT.relativize(file) + ": " + lines.size() + " lines");
            }
        }
        assertEquals(List.of(), problems, "split these files, or put the reason on the first line: "
                + LONG_FILE_REASON + "<why this file is one>");
    }

    private static final String LONG_FILE_REASON = "// Over 450 lines: ";

    private static List<String> modules() throws IOException {
        List<String> modules = new ArrayList<>();
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml"),
                StandardCharsets.UTF_8));
        while (module.find()) {
            modules.add(module.group(1).strip());
        }
        return modules;
    }

    /** Whether the top-level class of {@code className} has a source file in one of {@code roots}. */
    private static boolean hasSource(String className, List<Path> roots) {
        String topLevel = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
        String file = topLevel.replace('.', '/') + ".java";
        return roots.stream().anyMatch(root -> Files.isRegularFile(root.resolve(file)));
    }

    /** {@code io.sluice.core.plan.Foo$Bar} -> {@code core.plan}. */
    private static String packageOf(String className) {
        return className.substring(PREFIX.length(), className.lastIndexOf('.'));
    }

    /** The module table in docs/development.md lists every module the build has (profiles too), and no other. */
    @Test
    void theModuleTableListsTheBuildsModules() throws IOException {
        Set<String> built = new TreeSet<>(modules());
        String doc = Files.readString(ROOT.resolve("docs/development.md"), StandardCharsets.UTF_8);
        String table = doc.substring(doc.indexOf("## Modules"), doc.indexOf("## A map of the code"));
        Set<String> listed = new TreeSet<>();
        Matcher row = Pattern.compile("^\\| `([\\w/-]+)` \\|", Pattern.MULTILINE).matcher(table);
        while (row.find()) {
            listed.add(row.group(1));
        }
        assertEquals(built, listed, "docs/development.md's module table and the modules of pom.xml");
    }

    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p -> !p.toString().contains("/.git/"))
                    .toList();
        }
    }

    /** The block between the code-map markers: {@code package -> allowed, allowed}. */
    private static Map<String, Set<String>> map() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/development.md"), StandardCharsets.UTF_8);
        String start = "<!-- code-map -->";
        String block = doc.substring(doc.indexOf(start) + start.length(), doc.indexOf("<!-- /code-map -->"));
        Map<String, Set<String>> map = new LinkedHashMap<>();
        for (String line : block.lines().toList()) {
            int arrow = line.indexOf(" ->");
            if (arrow < 0) {
                continue;
            }
            Set<String> targets = new TreeSet<>();
            for (String target : line.substring(arrow + 3).split(",")) {
                if (!target.isBlank()) {
                    targets.add(target.strip());
                }
            }
            map.put(line.substring(0, arrow).strip(), targets);
        }
        return map;
    }

    /** Every main source file's package and the project packages it imports (relative to {@code io.sluice}). */
    private static Map<String, Set<String>> imports() throws IOException {
        Map<String, Set<String>> imports = new TreeMap<>();
        for (Path file : mainSources()) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Matcher declared = PACKAGE.matcher(text);
            if (!declared.find() || !declared.group(1).startsWith(PREFIX)) {
                continue;
            }
            String pkg = declared.group(1).substring(PREFIX.length());
            Set<String> own = imports.computeIfAbsent(pkg, k -> new TreeSet<>());
            Matcher m = IMPORT.matcher(text);
            while (m.find()) {
                List<String> parts = new ArrayList<>(List.of(m.group(2).split("\\.")));
                if (m.group(1) != null && m.group(3) == null) {
                    parts.removeLast(); // a static import names a member
                }
                while (!parts.isEmpty() && Character.isUpperCase(parts.getLast().charAt(0))) {
                    parts.removeLast(); // a class, perhaps nested
                }
                String imported = String.join(".", parts);
                if (imported.startsWith(PREFIX) && !imported.substring(PREFIX.length()).equals(pkg)) {
                    own.add(imported.substring(PREFIX.length()));
                }
            }
        }
        return imports;
    }

    private static java.util.Optional<String> cycle(Map<String, Set<String>> graph) {
        Set<String> done = new HashSet<>();
        for (String start : graph.keySet()) {
            List<String> path = new ArrayList<>();
            java.util.Optional<String> found = visit(start, graph, path, new HashSet<>(), done);
            if (found.isPresent()) {
                return found;
            }
        }
        return java.util.Optional.empty();
    }

    private static java.util.Optional<String> visit(String node, Map<String, Set<String>> graph, List<String> path,
                                                    Set<String> onPath, Set<String> done) {
        if (onPath.contains(node)) {
            return java.util.Optional.of(String.join(" -> ", path.subList(path.indexOf(node), path.size())) + " -> "
                    + node);
        }
        if (!done.add(node)) {
            return java.util.Optional.empty();
        }
        path.add(node);
        onPath.add(node);
        for (String next : graph.getOrDefault(node, Set.of())) {
            java.util.Optional<String> found = visit(next, graph, path, onPath, done);
            if (found.isPresent()) {
                return found;
            }
        }
        path.removeLast();
        onPath.remove(node);
        return java.util.Optional.empty();
    }
}
