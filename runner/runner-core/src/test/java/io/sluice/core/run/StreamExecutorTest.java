package io.sluice.core.run;

import io.sluice.core.diag.Position;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.ProjectionPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.MemoryConnector.Fault;
import io.sluice.core.run.MemoryConnector.Part;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.spec.ColumnMapping;
import io.sluice.core.spec.EndpointSpec;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.RetrySpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.core.spec.VerifyMode;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.Target;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StreamExecutorTest {
    private static final Position HERE = new Position("test.yaml", 1, 1);

    @Test
    void copiesEveryPartitionOnceAndTruncatesOnce() throws Exception {
        MemoryConnector memory = new MemoryConnector(List.of(
                new Part("a", 100, Fault.NONE), new Part("b", 5000, Fault.NONE), new Part("c", 0, Fault.NONE),
                new Part("d", 2500, Fault.NONE), new Part("e", 1, Fault.NONE)));
        RunReport report = run(memory, 3, LoadMode.TRUNCATE, RetrySpec.DEFAULT);

        assertEquals(0, report.exitCode());
        assertEquals(7601, report.rows());
        assertEquals(1, memory.truncates.get());
        assertEquals(Map.of("a", 100L, "b", 5000L, "d", 2500L, "e", 1L), withoutEmpty(memory.committed));
        StreamReport stream = report.streams().getFirst();
        assertEquals(5, stream.partitionsDone());
        assertTrue(stream.rowCountsMatch());
    }

    @Test
    void takesLargestPartitionsFirst() throws Exception {
        MemoryConnector memory = new MemoryConnector(List.of(
                new Part("small", 10, Fault.NONE), new Part("big", 900, Fault.NONE), new Part("mid", 50, Fault.NONE)));
        run(memory, 1, LoadMode.APPEND, RetrySpec.DEFAULT);
        assertEquals(List.of("big", "mid", "small"), memory.started);
    }

    @Test
    void retriesATransientFailureAndCommitsOnce() throws Exception {
        MemoryConnector memory = new MemoryConnector(List.of(
                new Part("flaky", 300, Fault.TRANSIENT_ONCE), new Part("ok", 200, Fault.NONE)));
        RunReport report = run(memory, 2, LoadMode.APPEND, fastRetry(3));

        assertEquals(0, report.exitCode());
        assertEquals(500, report.rows());
        assertEquals(2, memory.attempts.get("flaky").get());
        assertEquals(300L, memory.committed.get("flaky"));
        assertEquals(1, report.streams().getFirst().retries());
    }

    @Test
    void permanentFailureStopsTheStreamAndReportsOnlyTheFirstCause() throws Exception {
        List<Part> parts = new ArrayList<>();
        parts.add(new Part("bad", 1_000_000, Fault.PERMANENT));
        for (int i = 0; i < 20; i++) {
            parts.add(new Part("p" + i, 10, Fault.NONE));
        }
        MemoryConnector memory = new MemoryConnector(parts);
        RunReport report = run(memory, 1, LoadMode.APPEND, fastRetry(5));

        assertEquals(1, report.exitCode());
        assertEquals("MEM002", report.error().orElseThrow().code());
        assertTrue(report.error().orElseThrow().getMessage().contains("stream 'orders', partition 1/21"),
                report.error().orElseThrow().getMessage());
        assertEquals(1, memory.attempts.get("bad").get(), "a data error is not retried");
        assertTrue(memory.committed.isEmpty(), "no partition runs after the failure: " + memory.committed);
    }

    @Test
    void aRowCountMismatchRollsThePartitionBackAndFailsVerification() throws Exception {
        MemoryConnector memory = new MemoryConnector(List.of(new Part("short", 50, Fault.WRITER_DROPS_A_ROW)));
        RunReport report = run(memory, 1, LoadMode.APPEND, RetrySpec.DEFAULT);

        assertEquals(5, report.exitCode());
        assertEquals(ErrorKind.VERIFICATION, report.error().orElseThrow().kind());
        assertTrue(memory.committed.isEmpty());
        assertEquals(1, memory.aborted.get());
    }

    @Test
    void interruptCancelsInFlightCopiesAndExits130() throws Exception {
        MemoryConnector memory = new MemoryConnector(List.of(
                new Part("stuck", 100, Fault.BLOCK_UNTIL_CANCELLED), new Part("later", 10, Fault.NONE)));
        PipelineRunner runner = new PipelineRunner();
        BoundPlan plan = plan(memory, 1, LoadMode.APPEND, RetrySpec.DEFAULT);
        CompletableFuture<RunReport> running = CompletableFuture.supplyAsync(
                () -> runner.run(plan, "run-1", RunListener.NONE));
        assertTrue(memory.blocked.await(10, TimeUnit.SECONDS));
        runner.interrupt();
        RunReport report = running.get(10, TimeUnit.SECONDS);

        assertEquals(130, report.exitCode());
        assertTrue(memory.committed.isEmpty());
        assertEquals(1, memory.aborted.get(), "the in-flight partition was rolled back");
        assertEquals(List.of("stuck"), memory.started, "nothing starts after the interrupt");
    }

    private static Map<String, Long> withoutEmpty(Map<String, Long> committed) {
        Map<String, Long> copy = new java.util.HashMap<>(committed);
        copy.remove("(empty)");
        return copy;
    }

    private static RetrySpec fastRetry(int attempts) {
        return new RetrySpec(attempts, Duration.ofMillis(1), Duration.ofMillis(5));
    }

    private static RunReport run(MemoryConnector memory, int degree, LoadMode mode, RetrySpec retry)
            throws ConnectorException {
        return new PipelineRunner().run(plan(memory, degree, mode, retry), "run-1", RunListener.NONE);
    }

    /** Builds the plan the way the planner does: largest first. */
    private static BoundPlan plan(MemoryConnector memory, int degree, LoadMode mode, RetrySpec retry)
            throws ConnectorException {
        EndpointSpec endpoint = new EndpointSpec("mem", Options.empty(), HERE);
        StreamSpec stream = new StreamSpec("orders", endpoint, endpoint, Distribution.none(), degree, 1000, false,
                io.sluice.core.spec.LoadSpec.DEFAULT.withMode(mode), ColumnMapping.NAME,
                io.sluice.core.spec.ColumnRules.NONE, Consistency.NONE, VerifyMode.NONE, retry, java.time.Duration.ofSeconds(60),
                java.util.Optional.empty(), io.sluice.core.spec.StreamHooks.NONE,
                java.util.List.of(), java.util.Optional.empty(), io.sluice.spi.read.BadRows.NulBytes.FAIL, HERE);
        Source source = memory.source(Options.empty());
        Target target = memory.target(Options.empty());
        List<SourcePartition> planned = new ArrayList<>(source.plan(null));
        planned.sort(Comparator.comparingLong(SourcePartition::estimatedRows).reversed());
        List<ColumnPair> pairs = List.of(new ColumnPair(Column.of("id", "bigint"), Column.of("id", "bigint")));
        StreamBinding binding = new StreamBinding(source, target, memory.load(), java.util.Optional.empty(),
                source.project(pairs),
                io.sluice.spi.read.Source.ThreadModel.VIRTUAL);
        List<PartitionPlan> partitions = new ArrayList<>();
        for (SourcePartition p : planned) {
            partitions.add(binding.bind(PartitionPlan.of(partitions.size(), p, "read " + p.id()), p));
        }
        StreamPlan streamPlan = new StreamPlan(stream, degree, source.describe(), "memory", pairs,
                ProjectionPlan.of(source.project(pairs)), partitions, "none", partitions, false, false, "write",
                java.util.Optional.empty(), List.of(), java.util.Optional.empty(), Map.of(),
                io.sluice.spi.write.LoadPlan.of(new io.sluice.spi.write.TargetTable("memory", List.of())));
        PipelineSpec spec = new PipelineSpec(Path.of("test.yaml"), "0".repeat(64), 1, "test", java.util.Optional.empty(),
                true, io.sluice.core.spec.RunSettings.DEFAULT, Map.of(), List.of(stream), Set.of());
        return new BoundPlan(new PipelinePlan(spec, List.of(streamPlan)), Map.of("orders", binding));
    }
}
