package io.sluice.core.spec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where {@code ${VAR}} and {@code ${file:PATH}} get their values. Injectable so tests need neither real environment
 * variables nor real secret files.
 */
public interface Environment {
    /** The variable's value, or empty when it is not set. */
    Optional<String> variable(String name);

    /** The content of a file named by {@code ${file:PATH}}; the path is already resolved against the spec's folder. */
    String readFile(Path path) throws IOException;

    /** The process environment and the real file system. */
    static Environment system() {
        return of(System.getenv());
    }

    /** Fixed variables (tests, or a caller that filters the environment) and the real file system. */
    static Environment of(Map<String, String> variables) {
        Map<String, String> copy = Map.copyOf(requireNonNull(variables, "variables is null"));
        return new Environment() {
            @Override
            public Optional<String> variable(String name) {
                return Optional.ofNullable(copy.get(name));
            }

            @Override
            public String readFile(Path path) throws IOException {
                return Files.readString(path, StandardCharsets.UTF_8);
            }
        };
    }
}
