package io.sluice.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core stays free of the edge frameworks (they live in runner-app). The enforcer bans the dependencies; this
 * guards the imports too, e.g. a fully qualified name or a class that arrived transitively.
 */
class NoFrameworkImportsTest {
    private static final Pattern FORBIDDEN =
            Pattern.compile("\\b(org\\.springframework|picocli|io\\.micrometer)\\.");

    @Test
    void coreSourcesDoNotUseSpringPicocliOrMicrometer() throws IOException {
        Path sources = Path.of("src/main/java");
        List<String> offenders;
        try (Stream<Path> files = Files.walk(sources)) {
            offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .flatMap(NoFrameworkImportsTest::offendingLines)
                    .toList();
        }
        assertEquals(List.of(), offenders, "runner-core must not use Spring, Picocli or Micrometer");
    }

    @Test
    void theGuardRecognisesEachFramework() {
        for (String line : List.of("import org.springframework.boot.SpringApplication;", "import picocli.CommandLine;",
                "import static io.micrometer.core.instrument.Metrics.counter;")) {
            assertTrue(FORBIDDEN.matcher(line).find(), line);
        }
    }

    private static Stream<String> offendingLines(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return java.util.stream.IntStream.range(0, lines.size())
                    .filter(i -> FORBIDDEN.matcher(lines.get(i)).find())
                    .mapToObj(i -> file + ":" + (i + 1) + ": " + lines.get(i).strip());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
