package io.sluice.connector.duckdb;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerFileRewriteTest {
    @Test
    void replacesTheGlobLiteralOfTheOneFileCall() {
        String query = "SELECT * exclude filename from read_parquet('s3://b/o/*.parquet', filename=true) t";
        PerFileRewrite rewrite = PerFileRewrite.analyze(query, "filename").orElseThrow();
        assertEquals("s3://b/o/*.parquet", rewrite.glob());
        assertEquals("SELECT * exclude filename from read_parquet('s3://b/o/it''s.parquet', filename=true) t",
                rewrite.forFile("s3://b/o/it's.parquet"));
    }

    @Test
    void followsANamedFilenameColumnAndQuotedKeys() {
        String query = "SELECT * FROM READ_CSV( 'x/*.csv' , header = true, filename = 'src')";
        assertTrue(PerFileRewrite.analyze(query, "\"src\"").isPresent());
        assertEquals(Optional.empty(), PerFileRewrite.analyze(query, "filename"));
    }

    @Test
    void doesNotApplyWhenTheRuleDoesNot() {
        assertEquals(Optional.empty(), PerFileRewrite.analyze("SELECT * FROM read_parquet('a/*.parquet')", "filename"));
        assertEquals(Optional.empty(), PerFileRewrite.analyze(
                "SELECT * FROM read_parquet(['a.parquet', 'b.parquet'], filename=true)", "filename"));
        assertEquals(Optional.empty(), PerFileRewrite.analyze("SELECT * FROM read_parquet('a/*.parquet', "
                + "filename=true) JOIN read_parquet('b/*.parquet', filename=true) USING (id)", "filename"));
        // text that merely looks like a call is skipped
        assertEquals(Optional.empty(), PerFileRewrite.analyze(
                "SELECT 'read_parquet(''x'', filename=true)' AS s -- read_parquet('y', filename=true)", "filename"));
    }
}
