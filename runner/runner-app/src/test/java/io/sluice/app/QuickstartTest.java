package io.sluice.app;

import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's first command, as shipped: examples/quickstart.yaml on a fresh state folder, then again. */
class QuickstartTest {
    private static final Path QUICKSTART = Path.of("../../examples/quickstart.yaml");
    private static final Path PARQUET = Path.of("../../examples/quickstart-parquet.yaml");

    // The embedded servers a run starts in this folder live until the JVM exits (by design: a later command reuses
    // them), so JUnit cannot delete it while they may still write (a checkpoint's WAL): that failed the test now and
    // then. The folder goes with the test JVM's temporary files.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path state;

    // Full tier only: 2 M rows twice; quick: DistributionTest runs the same quickstart from the unpacked archive
    @Test
    @Tag(TestTier.FULL_ONLY)
    void quickstartRunsOnAFreshMachineAndAgain() throws Exception {
        CliRun first = CliRun.of("run", QUICKSTART.toString(), "--state-dir", state.toString());
        assertEquals(0, first.exitCode(), first.all());
        assertTrue(first.err().contains("stream orders: done, 2,000,000 rows"), first.err());
        assertTrue(first.err().contains("psql -h localhost -p"), "says how to connect: " + first.err());

        CliRun second = CliRun.of("run", QUICKSTART.toString(), "--state-dir", state.toString());
        assertEquals(0, second.exitCode(), second.all());

        int port = Integer.parseInt(Files.readString(state.resolve("postgres-18/port")).trim());
        assertEquals(fingerprint(port, "quickstart_source"), fingerprint(port, "quickstart_target"));
    }

    @Test
    void parquetPlanEstimatesRowsFromFootersAndPromisesNoSnapshot() throws Exception {
        CliRun plan = CliRun.of("plan", PARQUET.toString(), "--state-dir", state.toString(), "--format", "json");
        assertEquals(0, plan.exitCode(), plan.all());
        JsonNode stream = JsonMapper.builder().build().readTree(plan.out()).get("streams").get(0);
        // DuckDB has no snapshot to share across its readers: the plan must not claim one (the spec asks for it).
        assertTrue(stream.get("snapshot").asText().startsWith("none ("), stream.toString());
        long rows = 0;
        for (JsonNode partition : stream.get("partitions")) {
            assertTrue(partition.get("estimated-rows").asLong() > 0, partition.toString());
            rows += partition.get("estimated-rows").asLong();
        }
        assertEquals(stream.get("estimated-rows").asLong(), rows);
        assertEquals(4, stream.get("partitions").size());
    }

    private static String fingerprint(int port, String database) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/" + database,
                "postgres", ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) || ':' || sum(hashtext(o::text)::bigint) FROM orders o")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
