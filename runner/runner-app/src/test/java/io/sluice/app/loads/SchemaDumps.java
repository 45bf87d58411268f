package io.sluice.app.loads;

import io.sluice.testkit.TestingPostgres;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code pg_dump --schema-only} of one schema, as the dump comparisons ({@link SchemaDumpTest}, {@link PagilaDumpTest})
 * read it.
 */
final class SchemaDumps {
    private SchemaDumps() {
    }

    /** The schema as {@code pgDump} prints it, without its header (which names the database) and blank lines. */
    static List<String> of(Path pgDump, TestingPostgres pg, String database, String schema) throws IOException,
            InterruptedException {
        Path out = Files.createTempFile(database, ".sql");
        try {
            Process process = new ProcessBuilder(pgDump.toString(), "--schema-only", "--schema=" + schema,
                    "--host=" + pg.host(), "--port=" + pg.port(), "--username=" + pg.user(), "--dbname=" + database)
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            process.getOutputStream().close();
            assertTrue(process.waitFor(2, TimeUnit.MINUTES), "pg_dump did not finish");
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), text);
            List<String> lines = new ArrayList<>();
            for (String line : text.lines().toList()) {
                // pg_dump's version lines, and the random key of its \restrict guard (new in every dump)
                if (!line.isBlank() && !line.startsWith("-- Dumped ") && !line.startsWith("\\restrict ")
                        && !line.startsWith("\\unrestrict ")) {
                    lines.add(line);
                }
            }
            return lines;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
