package io.sluice.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/** A PostgreSQL client program found on the PATH (psql, pg_dump, pg_restore) and its version. */
record ClientTool(String name, Path path, String version, int majorVersion) {
    private static final Pattern VERSION = Pattern.compile("\\(PostgreSQL\\)\\s+(\\d+)(\\.\\d+)?");

    ClientTool {
        requireNonNull(name, "name is null");
        requireNonNull(path, "path is null");
        requireNonNull(version, "version is null");
    }

    /** The program on the PATH with its {@code --version}, or empty when it is missing or does not answer. */
    static Optional<ClientTool> find(String name) {
        requireNonNull(name, "name is null");
        return onPath(name).flatMap(program -> version(program).flatMap(v -> {
            Matcher m = VERSION.matcher(v);
            return m.find() ? Optional.of(new ClientTool(name, program, v.trim(), Integer.parseInt(m.group(1))))
                    : Optional.empty();
        }));
    }

    /** The program of that name in the first folder of the PATH that has it. */
    static Optional<Path> onPath(String name) {
        requireNonNull(name, "name is null");
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> version(Path program) {
        try {
            Process p = new ProcessBuilder(program.toString(), "--version").redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroy();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(new String(out, StandardCharsets.UTF_8)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
