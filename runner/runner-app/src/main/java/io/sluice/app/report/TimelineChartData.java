package io.sluice.app.report;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * The run report's data as one JSON document, every string through the redactor: per stream the attempts placed on
 * worker lanes, the throughput over time and the partitions, with times in milliseconds since the run started.
 */
public final class TimelineChartData {
    /** At most this many points in a throughput series. */
    static final int RATE_BUCKETS = 120;
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final UnaryOperator<String> redact;

    public TimelineChartData(UnaryOperator<String> redact) {
        this.redact = requireNonNull(redact, "redact is null");
    }

    public ObjectNode tree(RunTimeline run) {
        requireNonNull(run, "run is null");
        ObjectNode root = MAPPER.createObjectNode();
        root.put("runId", redact.apply(run.runId()));
        root.put("spec", redact.apply(run.specName()));
        root.put("state", run.state());
        root.put("origin", run.origin());
        root.put("started", run.started().toString());
        run.finished().ifPresent(f -> root.put("finished", f.toString()));
        root.put("seconds", seconds(run.started(), run.finished().orElseGet(() -> lastEnd(run))));
        root.put("rows", run.rows());
        root.put("bytes", run.bytes());
        run.error().ifPresent(e -> root.put("error", redact.apply(e)));
        root.put("sluiceVersion", SluiceVersion.get());
        ArrayNode streams = root.putArray("streams");
        for (RunTimeline.StreamTimeline stream : run.streams()) {
            stream(streams.addObject(), stream, run.started());
        }
        ArrayNode changes = root.putArray("changes");
        for (RunTimeline.ChangeTimeline feed : run.changes()) {
            ObjectNode node = changes.addObject();
            node.put("feed", redact.apply(feed.feed()));
            node.put("state", feed.state());
            node.put("from", feed.from());
            node.put("at", feed.at());
            node.put("transactions", feed.transactions());
            node.put("inserts", feed.inserts());
            node.put("updates", feed.updates());
            node.put("deletes", feed.deletes());
            node.put("truncates", feed.truncates());
            node.put("bytesBehind", feed.bytesBehind());
            feed.error().ifPresent(e -> node.put("error", redact.apply(e)));
        }
        return root;
    }

    private void stream(ObjectNode node, RunTimeline.StreamTimeline s, Instant origin) {
        node.put("name", redact.apply(s.name()));
        node.put("state", s.state());
        node.put("source", redact.apply(s.source()));
        node.put("target", redact.apply(s.target()));
        node.put("method", redact.apply(s.method()));
        node.put("degree", s.degree());
        node.put("rows", s.rows());
        node.put("bytes", s.bytes());
        node.put("deletedRows", s.deletedRows());
        node.put("rejectedRows", s.rejected());
        node.put("partitionsPlanned", s.partitionsPlanned());
        node.put("partitionsDoneBefore", s.partitionsDoneBefore());
        node.put("retries", s.retries());
        node.put("verification", redact.apply(s.verification()));
        s.error().ifPresent(e -> node.put("error", redact.apply(e)));
        ArrayNode statements = node.putArray("statements");
        s.statements().forEach(t -> statements.add(redact.apply(t)));
        ArrayNode shape = node.putArray("schemaChanges");
        s.schemaChanges().forEach(t -> shape.add(redact.apply(t)));
        ArrayNode columns = node.putArray("columns");
        s.columns().forEach(c -> columns.add(redact.apply(c)));

        List<Placed> placed = lanes(s.partitions());
        List<String> laneNames = new ArrayList<>();
        for (Placed p : placed) {
            while (laneNames.size() <= p.lane) {
                laneNames.add(null);
            }
            laneNames.set(p.lane, p.laneName);
        }
        ArrayNode lanes = node.putArray("lanes");
        laneNames.forEach(n -> lanes.add(redact.apply(n == null ? "" : n)));
        ArrayNode attempts = node.putArray("attempts");
        for (Placed p : placed) {
            ObjectNode a = attempts.addObject();
            a.put("partition", p.partition.index() + 1);
            a.put("attempt", p.attempt.number());
            a.put("lane", p.lane);
            a.put("startMillis", Duration.between(origin, p.attempt.start()).toMillis());
            a.put("endMillis", Duration.between(origin, p.attempt.end()).toMillis());
            a.put("outcome", p.attempt.outcome().name().toLowerCase(Locale.ROOT));
            p.attempt.error().ifPresent(e -> a.put("error", redact.apply(e)));
        }
        ArrayNode partitions = node.putArray("partitions");
        for (RunTimeline.PartitionTimeline p : s.partitions()) {
            ObjectNode o = partitions.addObject();
            o.put("number", p.index() + 1);
            o.put("id", redact.apply(p.id()));
            o.put("predicate", redact.apply(p.predicate()));
            o.put("state", p.state());
            o.put("rows", p.rows());
            o.put("bytes", p.bytes());
            o.put("rejected", p.rejected());
            o.put("attempts", p.attempts().size());
            o.put("seconds", p.attempts().isEmpty() ? 0 : seconds(p.attempts().getLast().start(),
                    p.attempts().getLast().end()));
        }
        ArrayNode rate = node.putArray("rate");
        for (RatePoint point : rate(s.partitions(), origin)) {
            ArrayNode r = rate.addArray();
            r.add(point.atMillis).add(Math.round(point.rowsPerSecond)).add(Math.round(point.megabytesPerSecond * 100)
                    / 100.0);
        }
    }

    /** An attempt on a worker lane: the lowest lane free when it started, per process in a joined run. */
    record Placed(RunTimeline.PartitionTimeline partition, RunTimeline.Attempt attempt, int lane, String laneName) {
    }

    static List<Placed> lanes(List<RunTimeline.PartitionTimeline> partitions) {
        record Entry(RunTimeline.PartitionTimeline partition, RunTimeline.Attempt attempt) {
        }
        List<Entry> entries = new ArrayList<>();
        for (RunTimeline.PartitionTimeline p : partitions) {
            for (RunTimeline.Attempt a : p.attempts()) {
                entries.add(new Entry(p, a));
            }
        }
        entries.sort(Comparator.comparing((Entry e) -> e.attempt.process().orElse(""))
                .thenComparing(e -> e.attempt.start()).thenComparing(e -> e.attempt.end()));
        Map<String, List<Instant>> laneEnds = new LinkedHashMap<>(); // per process: when each of its lanes is free
        Map<String, Integer> firstLane = new LinkedHashMap<>();
        int lanesSoFar = 0;
        List<Placed> placed = new ArrayList<>();
        for (Entry e : entries) {
            String process = e.attempt.process().orElse("");
            List<Instant> ends = laneEnds.computeIfAbsent(process, k -> new ArrayList<>());
            int local = -1;
            for (int i = 0; i < ends.size(); i++) {
                if (!ends.get(i).isAfter(e.attempt.start())) {
                    local = i;
                    break;
                }
            }
            if (local < 0) {
                ends.add(e.attempt.end());
                local = ends.size() - 1;
            } else {
                ends.set(local, e.attempt.end());
            }
            placed.add(new Placed(e.partition, e.attempt, local, (process.isEmpty() ? "" : process + " · ")
                    + "worker " + (local + 1)));
        }
        // Lanes numbered across processes, in the order the processes first appear.
        for (Map.Entry<String, List<Instant>> process : laneEnds.entrySet()) {
            firstLane.put(process.getKey(), lanesSoFar);
            lanesSoFar += process.getValue().size();
        }
        return placed.stream().map(p -> new Placed(p.partition, p.attempt, firstLane.get(p.attempt.process()
                .orElse("")) + p.lane, p.laneName)).toList();
    }

    record RatePoint(long atMillis, double rowsPerSecond, double megabytesPerSecond) {
    }

    /**
     * Throughput over time: each committed attempt's rows and bytes spread evenly over its duration (the rows of a
     * retried attempt were rolled back and do not count), summed in at most {@link #RATE_BUCKETS} equal buckets from the
     * stream's first attempt to its last end. Not from the run's start: the 10,000th stream of a run of 10,000 tables
     * carried 700 empty points, and its report weighed 30 MB.
     */
    static List<RatePoint> rate(List<RunTimeline.PartitionTimeline> partitions, Instant origin) {
        long startMillis = Long.MAX_VALUE;
        long endMillis = 0;
        for (RunTimeline.PartitionTimeline p : partitions) {
            for (RunTimeline.Attempt a : p.attempts()) {
                startMillis = Math.min(startMillis, Math.max(0, Duration.between(origin, a.start()).toMillis()));
                endMillis = Math.max(endMillis, Duration.between(origin, a.end()).toMillis());
            }
        }
        if (endMillis <= 0) {
            return List.of();
        }
        long first = Math.min(startMillis, endMillis - 1);
        long width = Math.max(100, (endMillis - first + RATE_BUCKETS - 1) / RATE_BUCKETS);
        int buckets = (int) ((endMillis - first + width - 1) / width);
        double[] rows = new double[buckets];
        double[] bytes = new double[buckets];
        for (RunTimeline.PartitionTimeline p : partitions) {
            for (RunTimeline.Attempt a : p.attempts()) {
                if (a.outcome() != RunTimeline.Outcome.DONE) {
                    continue;
                }
                long start = Duration.between(origin, a.start()).toMillis() - first;
                long end = Math.max(start + 1, Duration.between(origin, a.end()).toMillis() - first);
                for (int b = (int) Math.max(0, start / width); b < buckets && b * width < end; b++) {
                    long overlap = Math.min(end, (b + 1) * width) - Math.max(start, b * width);
                    if (overlap > 0) {
                        double share = (double) overlap / (end - start);
                        rows[b] += p.rows() * share;
                        bytes[b] += p.bytes() * share;
                    }
                }
            }
        }
        List<RatePoint> points = new ArrayList<>();
        for (int b = 0; b < buckets; b++) {
            double seconds = width / 1000.0;
            points.add(new RatePoint(first + b * width + width / 2, rows[b] / seconds, bytes[b] / 1e6 / seconds));
        }
        return points;
    }

    private static Instant lastEnd(RunTimeline run) {
        return run.streams().stream().flatMap(s -> s.partitions().stream()).flatMap(p -> p.attempts().stream())
                .map(RunTimeline.Attempt::end).max(Comparator.naturalOrder()).orElse(run.started());
    }

    private static double seconds(Instant from, Instant to) {
        return Math.round(Duration.between(from, to).toMillis() / 10.0) / 100.0;
    }
}
