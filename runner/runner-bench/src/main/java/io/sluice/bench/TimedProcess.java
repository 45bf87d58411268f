package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Runs a child process to completion with its output in a log file, and measures its wall time, CPU seconds (user +
 * sys, including its own waited-for children, as for a shell pipeline) and peak RSS. Uses {@code /usr/bin/time} when
 * present; otherwise CPU comes from this process's {@code cutime/cstime} and peak RSS is unknown.
 */
final class TimedProcess {
    private static final Path GNU_TIME = Path.of("/usr/bin/time");

    private final List<String> command;
    private final Map<String, String> environment;
    private final Path logFile;

    TimedProcess(List<String> command, Map<String, String> environment, Path logFile) {
        this.command = List.copyOf(requireNonNull(command, "command is null"));
        this.environment = Map.copyOf(requireNonNull(environment, "environment is null"));
        this.logFile = requireNonNull(logFile, "logFile is null");
    }

    record Result(int exitCode, ToolRun run, Path logFile) {
        Result {
            requireNonNull(run, "run is null");
            requireNonNull(logFile, "logFile is null");
        }

        /** The last lines of the log, for a failure message. */
        String logTail(int lines) {
            try {
                List<String> all = Files.readAllLines(logFile);
                return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
            } catch (IOException e) {
                return "(log " + logFile + " unreadable: " + e.getMessage() + ")";
            }
        }
    }

    /**
     * Runs a baseline tool for one measured run, its output in {@code <scenario id>-run<n>.log} under
     * {@code logDirectory}: its measurement, or a failure naming {@code what} with the log's last lines.
     */
    static ToolRun runTool(String what, ScenarioInfo info, int runNumber, List<String> command,
                           Map<String, String> environment, Path logDirectory)
            throws ScenarioFailure, InterruptedException {
        Path log = logDirectory.resolve(info.id().replace('/', '-') + "-run" + runNumber + ".log");
        try {
            Result result = new TimedProcess(command, environment, log).run();
            if (result.exitCode() != 0) {
                throw new ScenarioFailure(what + " exited with " + result.exitCode() + ":\n" + result.logTail(10));
            }
            return result.run();
        } catch (IOException e) {
            throw new ScenarioFailure("could not run " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs {@code processes} at once: wall time from the first start to the last end, CPU seconds and peak RSS
     * summed, the first non-zero exit code (else 0), the first process's log.
     */
    static Result together(List<TimedProcess> processes) throws IOException, InterruptedException {
        List<java.util.concurrent.Future<Result>> running = new ArrayList<>();
        long start = System.nanoTime();
        try (java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newThreadPerTaskExecutor(
                Thread.ofPlatform().name("bench-process-", 0).factory())) {
            for (TimedProcess process : processes) {
                running.add(pool.submit(process::run));
            }
            double cpu = 0;
            long rss = 0;
            boolean measured = true;
            int exit = 0;
            Path firstLog = null;
            for (java.util.concurrent.Future<Result> f : running) {
                Result r;
                try {
                    r = f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                }
                exit = exit != 0 ? exit : r.exitCode();
                firstLog = firstLog == null ? r.logFile() : firstLog;
                measured &= r.run().clientCpuSeconds().isPresent() && r.run().peakRssKb().isPresent();
                cpu += r.run().clientCpuSeconds().orElse(0);
                rss += r.run().peakRssKb().orElse(0);
            }
            double wall = (System.nanoTime() - start) / 1e9;
            return new Result(exit, new ToolRun(wall, measured ? OptionalDouble.of(cpu) : OptionalDouble.empty(),
                    measured ? OptionalLong.of(rss) : OptionalLong.empty()), firstLog);
        }
    }

    static boolean gnuTimeAvailable() {
        return Files.isExecutable(GNU_TIME);
    }

    Result run() throws IOException, InterruptedException {
        Files.createDirectories(logFile.getParent());
        Path timeFile = logFile.resolveSibling(logFile.getFileName() + ".time");
        Files.deleteIfExists(timeFile);
        boolean gnuTime = gnuTimeAvailable();
        List<String> full = new ArrayList<>();
        if (gnuTime) {
            full.addAll(List.of(GNU_TIME.toString(), "-f", "%e %U %S %M", "-o", timeFile.toString()));
        }
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(logFile.toFile()));
        builder.environment().putAll(environment);
        double childrenBefore = MachineCpu.waitedChildrenSeconds();
        long start = System.nanoTime();
        Process process = builder.start();
        int exit;
        try {
            exit = process.waitFor();
        } finally {
            if (process.isAlive()) { // interrupted: do not leave the child (or its children) running
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroy();
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        OptionalDouble cpu = OptionalDouble.empty();
        OptionalLong rss = OptionalLong.empty();
        if (gnuTime && Files.exists(timeFile)) {
            // GNU time may print "Command exited with non-zero status N" first: the figures are on the last line.
            List<String> lines = Files.readAllLines(timeFile);
            String[] f = lines.isEmpty() ? new String[0] : lines.getLast().trim().split("\\s+");
            if (f.length == 4) {
                cpu = OptionalDouble.of(Double.parseDouble(f[1]) + Double.parseDouble(f[2]));
                rss = OptionalLong.of(Long.parseLong(f[3]));
            }
        } else {
            double childrenAfter = MachineCpu.waitedChildrenSeconds();
            if (!Double.isNaN(childrenAfter) && !Double.isNaN(childrenBefore)) {
                cpu = OptionalDouble.of(childrenAfter - childrenBefore);
            }
        }
        return new Result(exit, new ToolRun(wall, cpu, rss), logFile);
    }
}
