package io.sluice.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Input of any size or shape gets a clear error with the fix, never an OutOfMemoryError or a wrong hint. */
class BoundedInputTest {
    @TempDir
    Path dir;

    @Test
    void aDeviceOrAHugeFileIsRefusedWithoutReadingItWhole() throws Exception {
        Path huge = dir.resolve("huge.yaml");
        Files.write(huge, new byte[2 * 1024 * 1024]);
        for (String command : new String[]{"lint", "run", "plan"}) {
            for (String file : new String[]{huge.toString(), "/dev/zero"}) {
                CliRun run = CliRun.of(command, file);
                assertEquals(3, run.exitCode(), command + " " + file + ": " + run.all());
                assertTrue(run.all().contains("larger than 1 MiB, which no spec is"), run.all());
                assertFalse(run.all().contains("OutOfMemoryError") || run.all().contains("\tat "), run.all());
            }
        }
    }

    @Test
    void aSpecThatIsNotUtf8AndAnAbsurdDegreeGetFixesThatApply() throws Exception {
        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(latin1, "version: 1\nname: caf\u00e9\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        CliRun notUtf8 = CliRun.of("lint", latin1.toString());
        assertEquals(3, notUtf8.exitCode(), notUtf8.all());
        assertTrue(notUtf8.all().contains("not UTF-8") && notUtf8.all().contains("iconv")
                && !notUtf8.all().contains("check the path"), notUtf8.all());

        Path degree = dir.resolve("degree.yaml");
        Files.writeString(degree, """
                version: 1
                name: degree
                connections:
                  db: { type: postgres, url: "jdbc:postgresql://localhost/x" }
                streams:
                  - name: t
                    source: { connection: db, table: a }
                    target: { connection: db, table: b }
                    degree: 99999999999999999999999
                """);
        CliRun absurd = CliRun.of("lint", degree.toString());
        assertEquals(3, absurd.exitCode(), absurd.all());
        assertTrue(absurd.all().contains("degree.yaml:9:") && absurd.all().contains("from 1 to 1024")
                && !absurd.all().contains("2^63"), absurd.all());
    }

    @Test
    void runIdsTheServiceWouldRefuseAreRefusedByTheCliToo() throws Exception {
        Path spec = dir.resolve("any.yaml");
        Files.writeString(spec, "version: 1\nname: any\n");
        for (String id : new String[]{"", "<b>x", "a b", "-dash"}) {
            CliRun run = CliRun.of("run", spec.toString(), "--run-id", id);
            assertEquals(2, run.exitCode(), "'" + id + "': " + run.all());
            assertTrue(run.all().contains("is not valid: a run id is 1 to 128 letters"), run.all());
        }
    }
}
