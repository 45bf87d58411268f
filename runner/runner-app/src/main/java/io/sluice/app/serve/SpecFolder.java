package io.sluice.app.serve;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The only specs the service runs: files under one folder, named relative to it ({@code orders.yaml},
 * {@code team/orders.yaml}). A name that tries to leave the folder — {@code ..}, an absolute path, a backslash — is
 * a bad request; a name that does not lead to a spec inside the folder, including through a symbolic link that
 * points outside, is not found.
 */
final class SpecFolder {
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]*");
    private static final int MAX_NAME = 255;

    private final Path folder;

    SpecFolder(Path folder) {
        requireNonNull(folder, "folder is null");
        try {
            this.folder = folder.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("the specs folder " + folder + " cannot be read", e);
        }
        if (!Files.isDirectory(this.folder)) {
            throw new IllegalArgumentException("the specs folder " + folder + " is not a folder");
        }
    }

    /** The spec file for {@code name}, its real path inside the folder. */
    Path resolve(String name) {
        if (name == null || name.isBlank()) {
            throw ApiException.badRequest("'spec' is required: the name of a spec in the specs folder");
        }
        if (name.length() > MAX_NAME || name.startsWith("/") || name.contains("\\") || name.contains(":")) {
            throw ApiException.badRequest("'spec' must be a relative name inside the specs folder");
        }
        for (String segment : name.split("/", -1)) {
            // Also refuses '..', '.', empty segments and hidden files: they all start with a dot or are empty.
            if (!SEGMENT.matcher(segment).matches()) {
                throw ApiException.badRequest("'spec' must be a relative name inside the specs folder");
            }
        }
        if (!name.endsWith(".yaml") && !name.endsWith(".yml")) {
            throw ApiException.badRequest("'spec' must name a .yaml or .yml file");
        }
        Path candidate = folder.resolve(name).normalize();
        if (!candidate.startsWith(folder)) {
            throw ApiException.badRequest("'spec' must be a relative name inside the specs folder");
        }
        Path real;
        try {
            real = candidate.toRealPath();
        } catch (IOException e) {
            throw ApiException.notFound("no spec '" + name + "' in the specs folder");
        }
        // A link inside the folder that leads out of it is treated as absent: say nothing about what is outside.
        if (!real.startsWith(folder) || !Files.isRegularFile(real)) {
            throw ApiException.notFound("no spec '" + name + "' in the specs folder");
        }
        return real;
    }

    /** Every spec name in the folder, sorted; files that lead outside it are left out. */
    List<String> names() {
        try (Stream<Path> walk = Files.walk(folder)) {
            return walk.filter(p -> {
                        String file = p.getFileName().toString();
                        return file.endsWith(".yaml") || file.endsWith(".yml");
                    })
                    .map(p -> folder.relativize(p).toString().replace('\\', '/'))
                    .filter(this::isRunnable)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the specs folder", e);
        }
    }

    private boolean isRunnable(String name) {
        try {
            resolve(name);
            return true;
        } catch (ApiException e) {
            return false;
        }
    }
}
