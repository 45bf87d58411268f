package io.sluice.testkit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * src/sh/find-jdk.sh is how ./mvnw, ./sluice and .ci/run find a JDK 21+ on a machine whose default java is older:
 * the README's test command depends on it. Fake JDK folders (a release file and executable stubs) stand in for real
 * ones, so the cases do not depend on what this machine has installed.
 */
class FindJdkScriptTest {
    @TempDir
    Path dir;
    private Path script;
    private Path home;
    private Path pathBin;

    @BeforeEach
    void setUp() throws IOException {
        script = repositoryRoot().resolve("src/sh/find-jdk.sh");
        home = Files.createDirectories(dir.resolve("home"));
        // PATH's java is a JDK 17, as on a machine whose default java is older than the build needs.
        Path jdk17 = fakeJdk(dir.resolve("jdk-17"), "17.0.15");
        pathBin = Files.createDirectories(dir.resolve("path-bin"));
        Files.createSymbolicLink(pathBin.resolve("java"), jdk17.resolve("bin/java"));
    }

    @Test
    void withNothingSetPicksTheNewestInstalledJdkAndSaysWhy() throws Exception {
        Path newest = fakeJdk(home.resolve(".jdks/jdk-99"), "99.0.1");
        fakeJdk(home.resolve(".jdks/jdk-98"), "98");
        Result result = run(Map.of(), "21");
        assertEquals(0, result.exit, result.stderr);
        assertEquals(newest.toString(), result.stdout.strip());
        assertEquals("using the JDK 99 at " + newest + " (the java on PATH is Java 17)", result.stderr.strip());
    }

    @Test
    void aJavaHomeOfTheRightVersionWinsSilently() throws Exception {
        fakeJdk(home.resolve(".jdks/jdk-99"), "99");
        Path javaHome = fakeJdk(dir.resolve("jdk-23"), "23.0.2");
        Result result = run(Map.of("JAVA_HOME", javaHome.toString()), "21");
        assertEquals(0, result.exit, result.stderr);
        assertEquals(javaHome.toString(), result.stdout.strip());
        assertEquals("", result.stderr);
    }

    @Test
    void anOlderJavaHomeIsPassedOverAndNamed() throws Exception {
        Path newest = fakeJdk(home.resolve(".jdks/jdk-99"), "99");
        Result result = run(Map.of("JAVA_HOME", dir.resolve("jdk-17").toString()), "21");
        assertEquals(newest.toString(), result.stdout.strip());
        assertTrue(result.stderr.contains("JAVA_HOME=" + dir.resolve("jdk-17") + " is Java 17"), result.stderr);
    }

    @Test
    void quietLeavesOutTheNote() throws Exception {
        Path newest = fakeJdk(home.resolve(".jdks/jdk-99"), "99");
        Result result = run(Map.of(), "--quiet", "21");
        assertEquals(newest.toString(), result.stdout.strip());
        assertEquals("", result.stderr);
    }

    @Test
    void noneNewEnoughFailsWithTheFix() throws Exception {
        Result result = run(Map.of(), "1000");
        assertEquals(1, result.exit);
        assertEquals("", result.stdout);
        assertTrue(result.stderr.contains("no JDK 1000 or newer found (the java on PATH is Java 17;"), result.stderr);
        assertTrue(result.stderr.contains("fix: install one"), result.stderr);
    }

    @Test
    void majorReadsTheReleaseFile() throws Exception {
        Result result = run(Map.of(), "--major", dir.resolve("jdk-17").toString());
        assertEquals("17", result.stdout.strip());
    }

    private static Path fakeJdk(Path jdkHome, String version) throws IOException {
        Path bin = Files.createDirectories(jdkHome.resolve("bin"));
        Files.writeString(jdkHome.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        for (String tool : List.of("java", "javac")) {
            Path stub = bin.resolve(tool);
            Files.writeString(stub, "#!/bin/sh\nexit 0\n");
            Files.setPosixFilePermissions(stub, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return jdkHome;
    }

    private Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("sh", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().put("PATH", pathBin + ":/usr/bin:/bin");
        builder.environment().put("HOME", home.toString());
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), stdout, stderr);
    }

    private static Path repositoryRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("src/sh/find-jdk.sh"))) {
                return d;
            }
        }
        throw new IllegalStateException("src/sh/find-jdk.sh not found above " + Path.of("").toAbsolutePath());
    }

    private record Result(int exit, String stdout, String stderr) {
    }
}
