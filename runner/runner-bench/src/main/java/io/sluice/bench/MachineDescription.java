package io.sluice.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/** Where and when the figures were measured: the report's header. Ordered label/value pairs. */
public record MachineDescription(List<Entry> entries) {
    public MachineDescription {
        entries = List.copyOf(requireNonNull(entries, "entries is null"));
    }

    public record Entry(String label, String value) {
        public Entry {
            requireNonNull(label, "label is null");
            requireNonNull(value, "value is null");
        }
    }

    public Optional<String> value(String label) {
        return entries.stream().filter(e -> e.label().equals(label)).map(Entry::value).findFirst();
    }

    /** Collects what this JVM can see of the machine and the repository; the caller adds servers and tools. */
    static Builder collect(Path repository) {
        requireNonNull(repository, "repository is null");
        Builder b = new Builder();
        b.add("date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
        b.add("commit", gitCommit(repository));
        b.add("cores", Runtime.getRuntime().availableProcessors() + procLine("/proc/cpuinfo", "model name")
                .map(m -> " (" + m + ")").orElse(""));
        b.add("memory", procLine("/proc/meminfo", "MemTotal").map(MachineDescription::gibibytes).orElse("unknown"));
        b.add("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        b.add("load average at start", read("/proc/loadavg").map(s -> String.join(" ",
                List.of(s.trim().split("\\s+")).subList(0, 3))).orElse("unknown"));
        b.add("JDK (harness and Sluice)", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + " (" + System.getProperty("java.vendor") + ")");
        return b;
    }

    static final class Builder {
        private final List<Entry> entries = new ArrayList<>();

        Builder add(String label, String value) {
            entries.add(new Entry(label, value));
            return this;
        }

        MachineDescription build() {
            return new MachineDescription(entries);
        }
    }

    private static String gibibytes(String memTotal) {
        String[] f = memTotal.trim().split("\\s+"); // "24641234 kB"
        return String.format("%.1f GiB", Long.parseLong(f[0]) / 1024.0 / 1024.0);
    }

    private static Optional<String> procLine(String file, String key) {
        return read(file).flatMap(text -> text.lines().filter(l -> l.startsWith(key)).findFirst())
                .map(l -> l.substring(l.indexOf(':') + 1).trim());
    }

    private static Optional<String> read(String file) {
        try {
            return Optional.of(Files.readString(Path.of(file)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** {@code HEAD}'s hash, marked when the work tree has uncommitted changes to tracked files. */
    static String gitCommit(Path repository) {
        Optional<String> head = git(repository, "rev-parse", "HEAD");
        if (head.isEmpty()) {
            return "unknown (not a git checkout)";
        }
        boolean dirty = git(repository, "status", "--porcelain", "--untracked-files=no").map(s -> !s.isBlank())
                .orElse(false);
        return head.get() + (dirty ? " (with uncommitted changes)" : "");
    }

    private static Optional<String> git(Path repository, String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-C", repository.toString()));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroy();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
