package io.sluice.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SluiceScenarioTest {
    @Test
    void sumsTheCopyTimesOfTheSummaryLines(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("run.log");
        Files.writeString(log, """
                stream orders: 16 partition(s), method data-driven, degree 1, binary copy, none
                stream orders: done, 150,000 rows, 22.3 MB in 2.2 s (67,081 rows/s, 10.0 MB/s), 16/16 partitions
                stream lineitem: done, 600,572 rows, 118.9 MB in 10 s (60,057 rows/s, 11.9 MB/s), 4/4 partitions
                run x: done, 750,572 rows, 141.2 MB in 12.2 s (exit 0)
                """);
        assertEquals(12.2, SluiceScenario.reportedCopySeconds(log).getAsDouble(), 1e-9);
        Files.writeString(log, "error: something else\n");
        assertTrue(SluiceScenario.reportedCopySeconds(log).isEmpty());
    }
}
