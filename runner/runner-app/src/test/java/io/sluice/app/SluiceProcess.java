package io.sluice.app;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of Sluice in a child JVM, for the tests that are about the process: a SIGKILL, a SIGTERM, a server
 * that must stop, a pod. (Tests of what a command does run it in this JVM with {@link CliRun}.)
 *
 * <p>The child starts as the launcher starts a command that copies little: the JIT's first tier only and the serial
 * collector (a test's child copies thousands of rows, not millions), which spares the two cores the C2 compiler's
 * threads at each of the ~200 starts of the full suite. (A dynamic class-data archive would help more, but the test
 * class path holds directories, which CDS refuses to dump, failing the child's exit code.)
 */
public final class SluiceProcess {
    private SluiceProcess() {
    }

    /** {@code java [jvmOptions] -cp <this JVM's class path> io.sluice.app.SluiceMain args}. */
    public static List<String> command(List<String> jvmOptions, List<String> args) {
        return command(List.of(System.getProperty("java.class.path")), jvmOptions, args);
    }

    /** The same with a class path of the caller's, e.g. without a driver a test puts in a plugins folder. */
    public static List<String> command(List<String> classPath, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", String.join(File.pathSeparator, classPath), "io.sluice.app.SluiceMain"));
        command.addAll(args);
        return command;
    }

    public static List<String> command(String... args) {
        return command(List.of(), List.of(args));
    }

    /** The command started, its output and errors going to {@code log}. */
    public static Process start(Path log, String... args) throws java.io.IOException {
        return new ProcessBuilder(command(args)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** {@code run SPEC --follow} started, returned once it applies changes ("on until stopped" in its log). */
    public static Process following(Path spec, Path log) throws Exception {
        Process child = start(log, "run", spec.toString(), "--follow");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        while (!read(log).contains("on until stopped")) {
            org.junit.jupiter.api.Assertions.assertTrue(child.isAlive(), () -> read(log));
            org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() < deadline, () -> read(log));
            Thread.sleep(5); // polling the log for a state, not timing anything
        }
        return child;
    }

    /** What a child wrote to {@code log} so far. */
    public static String read(Path log) {
        try {
            return java.nio.file.Files.exists(log) ? java.nio.file.Files.readString(log) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
