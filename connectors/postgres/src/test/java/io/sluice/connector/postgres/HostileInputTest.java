package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.SqlQuote;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.Digest;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;
import io.sluice.testkit.LedgerWrites;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Names and values built to break out of their quoting: quotes of both kinds, semicolons, dollar quotes,
 * backslashes, comment starters and Unicode in the schema, table, column, key values and the ledger schema. The
 * copy is exact and a canary table that the payloads try to drop survives on both sides.
 */
class HostileInputTest {
    private static final String SCHEMA = "s\"; DROP TABLE canary; --'$$\\ \u00e9";
    private static final String TABLE = "t'); DROP TABLE canary; --\"$a$";
    private static final String KEY = "k\"\"; $$\\'\u6f22";
    private static final String VALUE = "v$$ \\\" ;";
    private static final String LEDGER_SCHEMA = "l\"); DROP TABLE canary; --'$$\\\u00fc";
    private static final List<String> VALUES = List.of("'); DROP TABLE canary; --", "\"; DROP TABLE canary; --",
            "$$; DROP TABLE canary; $$", "back\\slash\\", "E'\\x00'", "tab\tnew\nline", "\u00e9\u6f22\ud83d\ude00",
            "a,b:c", "", "%_*?", "$tag$ x $tag$");
    private static CopyHarness harness;

    private static String qualified() {
        return SqlQuote.identifier(SCHEMA) + "." + SqlQuote.identifier(TABLE);
    }

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("hostile");
        harness.bothSql("CREATE TABLE canary (id int)",
                "CREATE SCHEMA " + SqlQuote.identifier(SCHEMA),
                "CREATE TABLE " + qualified() + " (" + SqlQuote.identifier(KEY) + " text, "
                        + SqlQuote.identifier(VALUE) + " text, n int)");
        StringBuilder insert = new StringBuilder("INSERT INTO " + qualified() + " VALUES ");
        int n = 0;
        for (String key : VALUES) {
            for (String value : VALUES) {
                insert.append(n == 0 ? "" : ", ").append('(').append(SqlQuote.literal(key)).append(", ")
                        .append(SqlQuote.literal(value)).append(", ").append(n++).append(')');
            }
        }
        insert.append(", (NULL, NULL, ").append(n).append(')');
        harness.sourceSql(insert.toString());
    }

    private static Connector targetConnector() {
        Map<String, Object> values = new HashMap<>();
        values.put("url", harness.server.jdbcUrl(harness.targetDb));
        values.put("user", harness.server.user());
        values.put("password", harness.server.password());
        values.put("ledger-schema", LEDGER_SCHEMA);
        return new PostgresConnectorFactory().create(new ConnectionConfig("pg",
                Options.of(PostgresOptions.CONNECTION, values), Path.of("."), Path.of("target")));
    }

    /** The table name as a spec writes it: double-quoted parts with {@code ""} for a quote. */
    private static String specName() {
        return QualifiedName.of(SCHEMA, TABLE).quoted();
    }

    @Test
    void hostileNamesValuesAndLedgerSchemaStayInsideTheirQuotes() throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(CopyHarness.sourceTable(specName()));
        Target target = targetConnector().targets().orElseThrow().open(CopyHarness.targetTable(specName()));
        List<Column> targetColumns = target.table().columns();
        List<Column> sourceColumns = source.columns();
        SourceProjection projection = source.project(targetColumns.stream().map(c -> new ColumnPair(
                sourceColumns.stream().filter(s -> s.name().equals(c.name())).findFirst().orElseThrow(), c))
                .toList());
        LedgerStore ledger = target.ledgerStore().orElseThrow();
        ledger.ensureReady();
        String run = "run'; DROP TABLE canary; --";
        String stream = "stream\"$$\\";
        LedgerWrites.insertStream(ledger, LedgerStream.starting(run, "spec '$$'", "sum", stream, "definition '; --",
                "none"));
        assertTrue(ContractSource.appendTo(target).ledgeredTruncate().orElseThrow()
                .truncate(LedgerWrites.recordTruncation(new StreamKey(run, stream))));

        for (Distribution distribution : List.of(
                new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of(KEY), Optional.empty()),
                new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of(SqlQuote.identifier(KEY)),
                        Optional.of("SELECT " + SqlQuote.literal(VALUES.get(0)) + " UNION ALL SELECT "
                                + SqlQuote.literal(VALUES.get(2)))),
                new Distribution(DistributionMethod.NTILE, Optional.of(KEY), Optional.empty()),
                new Distribution(DistributionMethod.MODULO, Optional.of(KEY), Optional.empty()))) {
            harness.targetSql("TRUNCATE " + qualified());
            String thisRun = run + distribution.method() + distribution.valuesQuery().isPresent();
            StreamKey key = new StreamKey(thisRun, stream);
            LedgerWrites.insertStream(ledger, LedgerStream.starting(thisRun, "spec", "sum", stream, "d", "none"));
            List<SourcePartition> partitions = source.plan(new PlanRequest(distribution, 3, 10));
            List<LedgerPartition> planned = new ArrayList<>();
            for (int i = 0; i < partitions.size(); i++) {
                SourcePartition p = partitions.get(i);
                planned.add(LedgerPartition.planned(i, p.id(), p.predicate(), p.checkpoint().orElseThrow()));
            }
            LedgerWrites.plan(ledger, key, planned);
            Source resumed = harness.sourceConnector.sources().orElseThrow().open(CopyHarness.sourceTable(specName()));
            try (SourceSession session = resumed.openSession(Consistency.SNAPSHOT)) {
                // Read the partitions as a resume would: restored from the checkpoints the ledger holds.
                for (LedgerPartition stored : ledger.partitions(key)) {
                    SourcePartition partition = resumed.restore(stored.checkpoint()).orElseThrow();
                    try (PartitionReader reader = session.openReader(partition, projection);
                         PartitionWriter writer = ContractSource.appendTo(target).openWriter(targetColumns, projection.format())) {
                        long read = reader.transferTo(writer);
                        assertEquals(read, writer.finish());
                        writer.ledgeredCommit().orElseThrow()
                                .commit(LedgerWrites.markDone(key, stored.partitionId(), read));
                    }
                    assertEquals(session.digest(partition, projection, Digest.Level.CHECKSUM),
                            target.digest(targetColumns, partition.portablePredicate(), Digest.Level.CHECKSUM),
                            partition.id());
                }
            }
            assertTrue(ledger.partitions(key).stream()
                    .allMatch(p -> p.state() == LedgerPartition.State.DONE), distribution.toString());
            harness.assertSameRows(qualified(), qualified(), SqlQuote.identifier(KEY) + ", "
                    + SqlQuote.identifier(VALUE) + ", n");
        }
        assertEquals(String.valueOf(VALUES.size() * VALUES.size() + 1),
                harness.query(harness.targetDb, "SELECT count(*) FROM " + qualified()));
        for (String db : List.of(harness.sourceDb, harness.targetDb)) {
            assertEquals("1", harness.query(db, "SELECT count(*) FROM pg_tables WHERE tablename = 'canary'"), db);
        }
        assertEquals("change_feed_tables,change_feeds,ledger_version,run_attempts,run_marks,run_partitions,run_streams", harness.query(harness.targetDb,
                "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = "
                        + SqlQuote.literal(LEDGER_SCHEMA)));
        assertEquals(run, harness.query(harness.targetDb, "SELECT run_id FROM " + SqlQuote.identifier(LEDGER_SCHEMA)
                + ".run_streams WHERE truncated_at IS NOT NULL"));
    }
}
