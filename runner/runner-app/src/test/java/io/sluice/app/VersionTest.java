package io.sluice.app;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sluice version} names each driver as it reports itself and says which fast path into it runs. */
class VersionTest {
    @Test
    void versionSaysWhichDriversRunAndWhichFastPathsAreOn() {
        CliRun version = CliRun.of("version");
        assertEquals(0, version.exitCode(), version.all());
        String out = version.out();
        assertTrue(out.contains("\npostgres: PgJDBC 42.7.14\n"), out);
        assertTrue(out.contains("\npostgres: fast path pgjdbc-copy-frames: on, rows read off PgJDBC's protocol "
                + "stream"), out);
        assertTrue(out.contains("\nduckdb: duckdb_jdbc 1.5.5.1\n"), out);
        assertTrue(out.contains("\nduckdb: fast path duckdb-vector-cells: on, NULL masks and fixed-width values "
                + "read from the vectors' buffers"), out);
        assertTrue(out.contains("\nduckdb: fast path duckdb-string-cells: on, text copied from DuckDB's string_t "
                + "cells"), out);
        assertTrue(out.contains("\nduckdb: mid-query failures: detected with DuckDBChunkedResult.checkError() of "
                + "duckdb_jdbc 1.5.5.1\n"), out);
    }

    @Test
    void versionNamesTheCommitTheBuildCameFrom() throws Exception {
        Process git = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
        String head = new String(git.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        assertEquals(0, git.waitFor(), head);
        String first = CliRun.of("version").out().lines().findFirst().orElseThrow();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("sluice .+ \\(commit ([0-9a-f]{7,})(-dirty)?\\)")
                .matcher(first);
        assertTrue(m.matches(), first);
        assertTrue(head.startsWith(m.group(1)), "built from " + m.group(1) + ", the checkout is at " + head);
    }

    @Test
    void versionNamesTheJavaRuntimeAndThePlatform() {
        String line = CliRun.of("version").out().lines().skip(1).findFirst().orElseThrow();
        assertEquals("java " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                + System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT) + "/"
                + System.getProperty("os.arch"), line);
    }

    @Test
    void versionSaysWhenAFastPathIsOff() {
        String property = "sluice.fastpath.pgjdbc-copy-frames";
        System.setProperty(property, "false");
        try {
            CliRun version = CliRun.of("version");
            assertTrue(version.out().contains("\npostgres: fast path pgjdbc-copy-frames: off, rows read with "
                    + "PgJDBC's CopyOut.readFromCopy(), a byte[] each (switched off with "
                    + "-Dsluice.fastpath.pgjdbc-copy-frames=false)\n"), version.out());
        } finally {
            System.clearProperty(property);
        }
    }
}
