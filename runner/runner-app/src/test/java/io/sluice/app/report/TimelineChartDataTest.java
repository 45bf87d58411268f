package io.sluice.app.report;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TimelineChartDataTest {
    private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

    private static RunTimeline.Attempt attempt(int number, long fromMillis, long toMillis, RunTimeline.Outcome outcome,
                                               String process) {
        return new RunTimeline.Attempt(number, T0.plusMillis(fromMillis), T0.plusMillis(toMillis), outcome,
                Optional.empty(), Optional.ofNullable(process));
    }

    private static RunTimeline.PartitionTimeline partition(int index, long rows, RunTimeline.Attempt... attempts) {
        return new RunTimeline.PartitionTimeline(index, "p" + index, "ctid range " + index, "done", rows, rows * 10,
                List.of(attempts));
    }

    @Test
    void attemptsGoOnTheLowestFreeLaneSoAStragglerAndIdleWorkersShow() {
        // Two workers: p0 runs long (the straggler); p1, p2, p3 follow each other on the other lane.
        List<TimelineChartData.Placed> placed = TimelineChartData.lanes(List.of(
                partition(0, 100, attempt(1, 0, 9000, RunTimeline.Outcome.DONE, null)),
                partition(1, 10, attempt(1, 0, 1000, RunTimeline.Outcome.DONE, null)),
                partition(2, 10, attempt(1, 1000, 2000, RunTimeline.Outcome.RETRIED, null),
                        attempt(2, 2500, 3000, RunTimeline.Outcome.DONE, null)),
                partition(3, 10, attempt(1, 3000, 4000, RunTimeline.Outcome.DONE, null))));
        assertEquals(5, placed.size());
        int stragglerLane = placed.stream().filter(p -> p.partition().index() == 0).findFirst().orElseThrow().lane();
        List<Integer> others = placed.stream().filter(p -> p.partition().index() != 0)
                .map(TimelineChartData.Placed::lane).distinct().toList();
        assertEquals(1, others.size(), "everything else fits on one lane, one after the other: " + placed);
        assertEquals(1, stragglerLane + others.getFirst(), "two lanes, 0 and 1: " + placed);
        assertEquals("worker " + (others.getFirst() + 1), placed.stream().filter(p -> p.partition().index() == 3)
                .findFirst().orElseThrow().laneName());
    }

    @Test
    void aChangeFeedShowsWhereItIsAndItsLagWhileItApplies() throws Exception {
        TimelineRecorder recorder = new TimelineRecorder(java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC));
        recorder.changesStarted("sluice_orders", "changes only", "0/100", Optional.empty());
        recorder.changesApplied("sluice_orders", new io.sluice.spi.changes.ChangeBatch(List.of(), "0/200", 3),
                new io.sluice.spi.changes.ChangeApplier.Applied(5, 2, 1, 0), 4_500_000);
        recorder.changesApplied("sluice_orders", new io.sluice.spi.changes.ChangeBatch(List.of(), "0/300", 2),
                new io.sluice.spi.changes.ChangeApplier.Applied(1, 0, 0, 0), 1_000);
        JsonNode live = new TimelineChartData(s -> s).tree(recorder.timeline());
        JsonNode feed = live.get("changes").get(0);
        assertEquals("sluice_orders", feed.get("feed").asString());
        assertEquals("applying", feed.get("state").asString());
        assertEquals("0/300", feed.get("at").asString());
        assertEquals(1_000, feed.get("bytesBehind").asLong());
        assertEquals(5, feed.get("transactions").asLong());
        assertEquals(6, feed.get("inserts").asLong());
        assertEquals(2, feed.get("updates").asLong());
        recorder.changesFinished(new io.sluice.core.run.report.ChangeReport("sluice_orders", List.of("orders"), "0/100",
                "0/300", 5, new io.sluice.spi.changes.ChangeApplier.Applied(6, 2, 1, 0), java.time.Duration.ofSeconds(1), 0,
                Optional.empty(), 0));
        JsonNode done = new TimelineChartData(s -> s).tree(recorder.timeline()).get("changes").get(0);
        assertEquals("done", done.get("state").asString());
        assertEquals(0, done.get("bytesBehind").asLong());
        assertTrue(new String(TimelineChartDataTest.class.getResourceAsStream("/io/sluice/app/report/run-report.html")
                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).contains("behind the source (lag)"),
                "the page draws each feed's lag");
    }

    @Test
    void eachProcessOfAJoinedRunGetsItsOwnLanes() {
        List<TimelineChartData.Placed> placed = TimelineChartData.lanes(List.of(
                partition(0, 10, attempt(1, 0, 1000, RunTimeline.Outcome.DONE, "host-a:1")),
                partition(1, 10, attempt(1, 0, 1000, RunTimeline.Outcome.DONE, "host-b:2")),
                partition(2, 10, attempt(1, 1000, 2000, RunTimeline.Outcome.DONE, "host-a:1"))));
        assertEquals(List.of(0, 0, 1), placed.stream().map(TimelineChartData.Placed::lane).toList());
        assertEquals(List.of("host-a:1 · worker 1", "host-a:1 · worker 1", "host-b:2 · worker 1"),
                placed.stream().map(TimelineChartData.Placed::laneName).toList());
    }

    @Test
    void throughputSpreadsEachCommittedAttemptOverItsTimeAndLeavesRolledBackAttemptsOut() {
        List<RunTimeline.PartitionTimeline> partitions = List.of(
                partition(0, 6000, attempt(1, 0, 6000, RunTimeline.Outcome.DONE, null)),
                partition(1, 3000, attempt(1, 0, 3000, RunTimeline.Outcome.RETRIED, null),
                        attempt(2, 3000, 6000, RunTimeline.Outcome.DONE, null)));
        List<TimelineChartData.RatePoint> rate = TimelineChartData.rate(partitions, T0);
        assertEquals(60, rate.size(), "6 s in buckets of at least 100 ms");
        double seconds = 0.1;
        double rows = rate.stream().mapToDouble(p -> p.rowsPerSecond() * seconds).sum();
        assertEquals(9000, rows, 1e-6, "every committed row is counted once");
        assertEquals(1000, rate.getFirst().rowsPerSecond(), 1e-6, "the first 3 s: only partition 0 commits rows");
        assertEquals(2000, rate.getLast().rowsPerSecond(), 1e-6, "the last 3 s: both");
    }

    @Test
    void aStreamThatStartsLateHasPointsOnlyFromItsStart() {
        // The last of many short streams: 80 s into the run, 20 ms long.
        List<TimelineChartData.RatePoint> rate = TimelineChartData.rate(List.of(
                partition(0, 10, attempt(1, 80_000, 80_020, RunTimeline.Outcome.DONE, null))), T0);
        assertEquals(1, rate.size(), "one bucket of 100 ms, not 800 from the run's start: " + rate);
        assertEquals(80_050, rate.getFirst().atMillis(), "placed on the run's time axis");
        assertEquals(100, rate.getFirst().rowsPerSecond(), 1e-6, "10 rows in a 100 ms bucket");
    }

    @Test
    void everyStringIsRedactedAndTimesAreMillisecondsSinceTheStart() {
        RunTimeline run = new RunTimeline("run-1", "spec", "done", T0, Optional.of(T0.plusSeconds(2)), 10, 100,
                Optional.of("error mentions s3cr3t"), "test", List.of(new RunTimeline.StreamTimeline("items", "done",
                "src table s3cr3t", "dst", "ctid", 2, 10, 100, 0, 1, 0, 0, List.of("COPY s3cr3t"), List.of("a -> b"), "",
                Optional.empty(), List.of(partition(0, 10, attempt(1, 500, 1500, RunTimeline.Outcome.DONE, null))),
                List.of("added column s3cr3t text to public.dst"))));
        JsonNode tree = new TimelineChartData(s -> s.replace("s3cr3t", "***")).tree(run);
        assertFalse(tree.toString().contains("s3cr3t"), tree.toString());
        assertTrue(tree.toString().contains("***"));
        JsonNode a = tree.get("streams").get(0).get("attempts").get(0);
        assertEquals(500, a.get("startMillis").asLong());
        assertEquals(1500, a.get("endMillis").asLong());
        assertEquals("done", a.get("outcome").asText());
    }
}
