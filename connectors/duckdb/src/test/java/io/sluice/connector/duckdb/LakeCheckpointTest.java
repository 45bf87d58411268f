package io.sluice.connector.duckdb;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checkpoint a resumed run rebuilds a table partition from keeps every file of a group, whatever characters their
 * paths hold; a version-1 checkpoint (one file, written before groups) still reads. A checkpoint that did not parse
 * would silently fall back to the fresh plan's partition of the same id, so the round trip is checked here.
 */
class LakeCheckpointTest {
    private static final LakeTable.Pin PIN = new LakeTable.Pin(new LakeTable(LakeTable.Format.ICEBERG, "/lake/t\nx",
            OptionalLong.empty(), Optional.empty()), Optional.of("00003-abc"), OptionalLong.of(42));

    @Test
    void aGroupsFilesRoundTrip() {
        List<String> files = List.of("/lake/t\nx/data/a.parquet", "/lake/t\nx/data/b\tc.parquet",
                "/lake/t\nx/data/d\\e.parquet");
        DuckDbPartition partition = DuckDbPartition.of("file:data/a.parquet+2", new LakeTable.PinnedFiles(PIN, files),
                3, 300);
        LakeCheckpoint.Restored restored = LakeCheckpoint.parse(partition.checkpoint().orElseThrow()).orElseThrow();
        assertEquals(files, restored.files());
        assertEquals("file:data/a.parquet+2", restored.id());
        assertEquals(OptionalLong.of(42), restored.version());
        assertEquals(Optional.of("00003-abc"), restored.metadata());
        assertEquals("/lake/t\nx", restored.folder());
        assertEquals(3, restored.rows());
        assertEquals(OptionalLong.of(3), partition.exactRows(), "a group's rows are exact");
        assertTrue(partition.relation().contains("filename IN ("), partition.relation());
    }

    @Test
    void aVersionOneCheckpointStillReads() {
        String v1 = String.join("\n", "duckdb-lake/1", "delta", "/lake/d", "", "4", "file:x.parquet",
                "/lake/d/x\\\\y.parquet", "7", "-1");
        LakeCheckpoint.Restored restored = LakeCheckpoint.parse(v1).orElseThrow();
        assertEquals(List.of("/lake/d/x\\y.parquet"), restored.files());
        assertEquals(LakeTable.Format.DELTA, restored.format());
        assertEquals(7, restored.rows());
    }
}
