package io.sluice.connector.postgres;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker keeps one connection per side for all its partitions (connecting per partition cost a connection and
 * session set-up each time), each partition still in its own transaction, and never reuses a connection whose
 * partition failed.
 */
class WorkerConnectionsTest {
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("workers");
        harness.sourceSql("CREATE TABLE items (id int, pad text)",
                "INSERT INTO items SELECT g, repeat('x', 300) FROM generate_series(1, 4000) AS g");
    }

    @Test
    void writersShareOneConnectionAndDropOneWhosePartitionFailed() throws Exception {
        harness.targetSql("CREATE TABLE landed (id int)");
        Target target = harness.targetConnector.targets().orElseThrow().open(targetTable("landed"));
        List<Column> columns = target.table().columns();
        List<String> pids = new ArrayList<>();
        try (PartitionWriters writers = ContractSource.appendTo(target).openWriters(columns, CopyFormat.TEXT)) {
            for (int partition = 1; partition <= 3; partition++) {
                try (PartitionWriter writer = writers.open()) {
                    pids.add(copyBackend(harness.targetDb));
                    write(writer, partition + "\n");
                    assertEquals(1, writer.finish());
                    writer.commit();
                }
            }
            assertEquals(1, Set.copyOf(pids).size(), "one connection for three partitions: " + pids);

            String failed;
            try (PartitionWriter writer = writers.open()) {
                failed = copyBackend(harness.targetDb);
                write(writer, "not a number\n");
                assertThrows(ConnectorException.class, writer::finish);
                writer.abort();
            }
            try (PartitionWriter writer = writers.open()) {
                assertNotEquals(failed, copyBackend(harness.targetDb), "a failed partition's connection was reused");
                write(writer, "4\n");
                assertEquals(1, writer.finish());
                writer.commit();
            }
        }
        assertEquals("1,2,3,4", harness.query(harness.targetDb, "SELECT string_agg(id::text, ',' ORDER BY id) "
                + "FROM landed"));
    }

    @Test
    void readersShareOneConnectionAndEveryPartitionReadsTheSessionSnapshot() throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("items"));
        List<Column> columns = source.columns();
        SourceProjection projection = source.project(columns.stream().map(c -> new ColumnPair(c, c)).toList());
        List<SourcePartition> partitions = source.plan(
                new PlanRequest(distribution(DistributionMethod.CTID, null), 1, 1000));
        assertTrue(partitions.size() >= 3, "needs several partitions, got " + partitions.size());
        Set<String> pids = new HashSet<>();
        long rows = 0;
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
             PartitionReaders readers = session.openReaders(projection)) {
            // Committed after the snapshot: no partition may see them, the open-ended last one included.
            harness.sourceSql("INSERT INTO items SELECT g, 'late' FROM generate_series(1, 500) AS g");
            for (SourcePartition partition : partitions) {
                try (PartitionReader reader = readers.open(partition)) {
                    boolean[] seen = {false};
                    rows += reader.transferTo((buffer, offset, length) -> {
                        if (!seen[0]) {
                            seen[0] = true;
                            pids.add(copyBackendUnchecked(harness.sourceDb));
                        }
                    });
                }
            }
        } finally {
            harness.sourceSql("DELETE FROM items WHERE pad = 'late'");
        }
        assertEquals(4000, rows);
        assertEquals(1, pids.size(), "one connection for " + partitions.size() + " partitions: " + pids);
    }

    private static void write(PartitionWriter writer, String text) throws ConnectorException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        writer.write(bytes, 0, bytes.length);
    }

    /** The backend whose transaction runs Sluice's COPY in that database right now (the server may be done). */
    private static String copyBackend(String database) throws SQLException {
        String pid = harness.query(database, "SELECT string_agg(pid::text, ',') FROM pg_stat_activity "
                + "WHERE application_name = 'sluice' AND datname = current_database() AND query LIKE 'COPY%' "
                + "AND state IN ('active', 'idle in transaction')");
        assertNotNull(pid, "no COPY of Sluice's under way in " + database);
        return pid;
    }

    private static String copyBackendUnchecked(String database) {
        try {
            return copyBackend(database);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
