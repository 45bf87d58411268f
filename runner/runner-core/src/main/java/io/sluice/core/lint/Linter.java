package io.sluice.core.lint;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Position;
import io.sluice.core.diag.Severity;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.SpecCode;
import io.sluice.core.spec.SpecLoader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * {@code sluice lint}: loads every spec under the given paths in {@link SpecLoader.Mode#LINT} (offline; unset
 * variables are notes) and gathers all diagnostics into one report.
 */
public final class Linter {
    private final SpecLoader loader;

    public Linter(ConnectorRegistry registry, Environment environment) {
        this.loader = new SpecLoader(requireNonNull(registry, "registry is null"),
                requireNonNull(environment, "environment is null"), SpecLoader.Mode.LINT);
    }

    /**
     * Lints files and directories (recursing into {@code *.yaml} and {@code *.yml} that {@link #looksLikeSpec look
     * like specs}); paths print as given.
     */
    public LintReport lint(List<Path> paths) {
        requireNonNull(paths, "paths is null");
        List<String> files = new ArrayList<>();
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (Path path : paths) {
            List<Path> specs;
            try {
                specs = expand(path);
            } catch (IOException | UncheckedIOException e) {
                diagnostics.add(new Diagnostic(Severity.ERROR, SpecCode.SPEC001.name(),
                        new Position(path.toString(), 1, 1), "cannot read '" + path + "': "
                        + e.getClass().getSimpleName(), Optional.of("check the path and its permissions")));
                continue;
            }
            for (Path spec : specs) {
                files.add(spec.toString());
                diagnostics.addAll(loader.load(spec).diagnostics());
            }
        }
        return new LintReport(files, diagnostics);
    }

    private static final java.util.regex.Pattern SPEC_KEY =
            java.util.regex.Pattern.compile("(?m)^(connections|streams)\\s*:");

    /**
     * Whether a YAML file found in a folder is a Sluice spec: it has a top-level connections: or streams: key (a compose file's version: alone is not enough).
     * Folders hold other YAML too (CI workflows, DAG configs), which lint leaves alone; a file named on the command
     * line is always linted.
     */
    public static boolean looksLikeSpec(Path file) {
        try {
            try (java.io.InputStream in = Files.newInputStream(file)) {
                // The keys are at the top: the first part of a large file decides.
                String head = new String(in.readNBytes(64 * 1024), java.nio.charset.StandardCharsets.UTF_8);
                return SPEC_KEY.matcher(head).find();
            }
        } catch (IOException | UncheckedIOException e) {
            return true; // unreadable: let the loader report it
        }
    }

    private static List<Path> expand(Path path) throws IOException {
        if (!Files.isDirectory(path)) {
            return List.of(path); // a missing file is reported by the loader
        }
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> {
                        String name = p.getFileName().toString();
                        return name.endsWith(".yaml") || name.endsWith(".yml");
                    })
                    .filter(Linter::looksLikeSpec)
                    .sorted(Comparator.comparing(Path::toString))
                    .toList();
        }
    }
}
