package io.sluice.testkit;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadRequest;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.TargetClaim;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The load lifecycle every target keeps, for each load mode its factory declares ({@code TargetCapabilities}): plan ->
 * claim -> begin -> a writer per partition -> finish, or abort after a failure, driven as the runner drives it. An
 * append adds to what the table holds; a truncate load leaves only its rows; a merge updates the rows whose key it
 * meets and adds the rest; a replace swaps in a table holding exactly its rows; a rebuild ends (or aborts) with every
 * index as it was; a resumed process (a new target with the run's marks) keeps what the first one loaded. A mode the factory
 * does not declare is not tried (the test says so, as an assumption).
 *
 * <p>Extend it with the {@link TargetFixture} of {@link TargetContractTest}; a target that declares merge or index
 * rebuilds needs the fixture's {@link TargetFixture#createKeyedTable} and {@link TargetFixture#indexes}.
 */
public abstract class TargetLoadContractTest extends TargetContractSupport {
    @Test
    void anAppendAddsToWhatTheTableHolds() throws Exception {
        String table = newTable();
        commit(load(table), target(table).table().columns(), rows(0, 10));
        load(table, LoadRequest.of(LoadMode.APPEND), rows(10, 30));
        assertRows(rows(0, 30), table, "an append keeps the rows and adds its own");
    }

    @Test
    void aTruncateLoadLeavesOnlyItsRows() throws Exception {
        String table = newTable();
        commit(load(table), target(table).table().columns(), rows(0, 10));
        load(table, LoadRequest.of(LoadMode.TRUNCATE), rows(100, 120));
        assertRows(rows(100, 120), table, "a truncate load leaves its rows only");
    }

    @Test
    void aMergeUpdatesTheRowsItsKeyMeetsAndAddsTheRest() throws Exception {
        assumeTrue(capabilities().supports(LoadMode.MERGE), "the factory declares no merge");
        String table = newName("contract_keyed");
        fixture().createKeyedTable(table);
        commit(load(table), target(table).table().columns(), relabelled(rows(0, 10), "old"));
        load(table, LoadRequest.of(LoadMode.MERGE), rows(5, 15));
        assertRows(concat(relabelled(rows(0, 5), "old"), rows(5, 15)), table, "a merge updates ids 5-9 and adds 10-14");
    }

    @Test
    void aReplaceSwapsInATableHoldingExactlyItsRows() throws Exception {
        assumeTrue(capabilities().supports(LoadMode.REPLACE), "the factory declares no replace");
        String table = newTable();
        commit(load(table), target(table).table().columns(), rows(0, 10));
        load(table, LoadRequest.of(LoadMode.REPLACE), rows(50, 60));
        assertRows(rows(50, 60), table, "a replace leaves its rows only, under the table's name");
    }

    @Test
    void aRebuildEndsWithEveryIndexAsItWas() throws Exception {
        assumeTrue(capabilities().rebuildsIndexes(), "the factory declares no index rebuild");
        String table = newName("contract_keyed");
        fixture().createKeyedTable(table);
        List<String> before = List.copyOf(new java.util.TreeSet<>(fixture().indexes(table)));
        assertFalse(before.isEmpty(), "a keyed table has indexes");
        load(table, rebuilding(LoadMode.TRUNCATE), rows(0, 40));
        assertRows(rows(0, 40), table, "the rows of the rebuilding load");
        assertEquals(before, List.copyOf(new java.util.TreeSet<>(fixture().indexes(table))),
                "every index back after the load");
    }

    @Test
    void aFailedRebuildPutsTheIndexesBackOnAbort() throws Exception {
        assumeTrue(capabilities().rebuildsIndexes(), "the factory declares no index rebuild");
        String table = newName("contract_keyed");
        fixture().createKeyedTable(table);
        List<String> before = List.copyOf(new java.util.TreeSet<>(fixture().indexes(table)));
        PlannedLoad target = target(table).planLoad(rebuilding(LoadMode.TRUNCATE), ContractSource.INSTANCE);
        LoadPlan plan = target.plan();
        MemoryMarks marks = new MemoryMarks(newName("run"));
        try (TargetClaim ignored = target.claim(marks.runId())) {
            target.begin(marks);
            target.truncate();
            try (PartitionWriters writers = target.openWriters(plan.table().columns(), format());
                 PartitionWriter writer = writers.open()) {
                write(writer, rows(0, 10));
                writer.abort(); // the partition failed: the stream fails
            }
            target.abort(marks);
        }
        assertEquals(before, List.copyOf(new java.util.TreeSet<>(fixture().indexes(table))),
                "every index back after the failure");
    }

    @Test
    void aResumedProcessKeepsWhatTheFirstOneLoaded() throws Exception {
        for (LoadMode mode : LoadMode.values()) {
            if (!capabilities().supports(mode) || mode == LoadMode.MERGE) {
                continue; // merge needs a keyed table, tried above
            }
            String table = newTable();
            commit(load(table), target(table).table().columns(), rows(0, 5));
            MemoryMarks marks = new MemoryMarks(newName("run"));
            // The first process begins the load and commits one partition, then dies before the end.
            PlannedLoad first = target(table).planLoad(LoadRequest.of(mode), ContractSource.INSTANCE);
            LoadPlan plan = first.plan();
            try (TargetClaim ignored = first.claim(marks.runId())) {
                first.begin(marks);
                if (mode == LoadMode.TRUNCATE) {
                    first.truncate(); // once per run: the runner's ledger keeps a resume from doing it again
                }
                writePartition(first, plan, rows(10, 20));
            }
            // A resumed process: a new target, the same run's marks; its begin must not undo the first one's work.
            PlannedLoad again = target(table).planLoad(LoadRequest.of(mode), ContractSource.INSTANCE);
            try (TargetClaim ignored = again.claim(marks.runId())) {
                again.begin(marks);
                writePartition(again, plan, rows(20, 30));
                again.finish(marks);
            }
            List<ContractRow> loaded = rows(10, 30);
            assertRows(mode == LoadMode.APPEND ? concat(rows(0, 5), loaded) : loaded, table, mode + ", resumed");
        }
    }

    /** Plans, claims, begins, writes {@code rows} as one partition, and finishes, as the runner does. */
    private void load(String table, LoadRequest request, List<ContractRow> rows) throws Exception {
        PlannedLoad target = target(table).planLoad(request, ContractSource.INSTANCE);
        LoadPlan plan = target.plan();
        MemoryMarks marks = new MemoryMarks(newName("run"));
        try (TargetClaim ignored = target.claim(marks.runId())) {
            target.begin(marks);
            if (request.mode() == LoadMode.TRUNCATE) {
                target.truncate();
            }
            writePartition(target, plan, rows);
            target.finish(marks);
        }
    }

    private void writePartition(PlannedLoad target, LoadPlan plan, List<ContractRow> rows) throws Exception {
        try (PartitionWriters writers = target.openWriters(plan.table().columns(), format());
             PartitionWriter writer = writers.open()) {
            writeAndFinish(writer, rows);
            writer.commit();
        }
    }

    private static LoadRequest rebuilding(LoadMode mode) {
        return new LoadRequest(mode, List.of(), LoadRequest.OnDuplicate.ERROR, false, false,
                LoadRequest.Indexes.REBUILD, Optional.empty(), 2);
    }

    private static List<ContractRow> relabelled(List<ContractRow> rows, String label) {
        return rows.stream().map(r -> new ContractRow(r.id(), Optional.of(label + " " + r.id()))).toList();
    }

    /** The marks of one stream of one run, in memory: what the runner's ledger keeps, without a crash to survive. */
    private static final class MemoryMarks implements LoadMarks {
        private final String runId;
        private final Map<String, String> marks = new ConcurrentHashMap<>();

        MemoryMarks(String runId) {
            this.runId = runId;
        }

        @Override
        public String runId() {
            return runId;
        }

        @Override
        public LedgerWork<Map<String, String>> reading() {
            return tx -> Map.copyOf(marks);
        }

        @Override
        public LedgerWork<Void> writing(String name, String value) {
            return tx -> {
                marks.put(name, value);
                return null;
            };
        }
    }
}
