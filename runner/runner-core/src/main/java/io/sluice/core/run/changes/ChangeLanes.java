package io.sluice.core.run.changes;

import io.sluice.core.ledger.Ledger;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.changes.ChangeRoute;
import io.sluice.spi.changes.ChangeSink;
import io.sluice.spi.changes.RowChange;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.write.Target;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Applies one feed's batches to its targets: through one connection, or, when the run may use several
 * ({@code max-parallel-streams}) and the feed has tables the target does not tie together (no foreign key between
 * them), each group of tables through a connection of its own, at once. Per table the source's order holds, and a
 * source transaction that touches tables of two groups is applied whole through the one connection, after what came
 * before it: no transaction is split across tables (the feed reads with {@code consistency: snapshot}).
 *
 * <p>Exactly once: a group's transaction records how far each of its tables got, then the feed's position moves once
 * every group is there. A run that failed between the two leaves table positions past the feed's; the next run skips,
 * per table, the changes of transactions up to them.
 */
final class ChangeLanes implements AutoCloseable {
    private final ChangeApplier whole;
    /** The group appliers; empty when everything goes through {@link #whole}. */
    private final List<ChangeApplier> lanes;
    private final Map<String, Integer> laneOf;
    private final Comparator<String> order;
    private final Ledger ledger;
    private final String runId;
    private ChangeFeedRecord record;
    /** Tables an earlier run applied past the feed's position, and how far: their changes up to it are skipped. */
    private final Map<String, String> appliedPast;
    private String appliedPastUpTo;
    /** Table positions were written since they were last forgotten. */
    private boolean tablePositions;
    /** Parts of a big transaction went through {@link #whole} and wait for its last part. */
    private boolean partsOpen;

    private ChangeLanes(ChangeApplier whole, List<ChangeApplier> lanes, Map<String, Integer> laneOf,
                        Comparator<String> order, Ledger ledger, ChangeFeedRecord record, String runId,
                        Map<String, String> appliedPast) {
        this.whole = whole;
        this.lanes = lanes;
        this.laneOf = laneOf;
        this.order = order;
        this.ledger = ledger;
        this.record = record;
        this.runId = runId;
        this.appliedPast = new HashMap<>(appliedPast);
        this.appliedPastUpTo = appliedPast.values().stream().max(order).orElse(null);
        this.tablePositions = !appliedPast.isEmpty();
    }

    /**
     * Opens the appliers: one for every route, and with {@code parallel} above 1 and tables in more than one
     * {@link ChangeApplier#tiedTables() group}, up to {@code parallel} more, each for some of the groups.
     */
    static ChangeLanes open(Target target, List<ChangeRoute> routes, int parallel,
                            Optional<Comparator<String>> positionOrder, Ledger ledger, ChangeFeedRecord record,
                            String runId) throws ConnectorException {
        requireNonNull(target, "target is null");
        requireNonNull(routes, "routes is null");
        requireNonNull(positionOrder, "positionOrder is null");
        requireNonNull(ledger, "ledger is null");
        requireNonNull(record, "record is null");
        requireNonNull(runId, "runId is null");
        Map<String, String> appliedPast = ledger.feeds().tablePositions(record.specName(), record.feed());
        if (!appliedPast.isEmpty() && positionOrder.isEmpty()) {
            throw new IllegalStateException("change feed " + record.feed() + " has table positions but cannot "
                    + "order its positions");
        }
        Comparator<String> order = positionOrder.orElse((a, b) -> {
            throw new IllegalStateException("positions of change feed " + record.feed() + " are not ordered");
        });
        ChangeSink sink = target.changeSink().orElseThrow(() -> new ConnectorException(ErrorKind.PREFLIGHT,
                SpiCode.SPI012, target.describe() + " cannot apply changes", "load the stream into a PostgreSQL "
                + "table, or remove changes: from its source"));
        ChangeApplier whole = sink.openChangeApplier(routes);
        List<ChangeApplier> lanes = new ArrayList<>();
        Map<String, Integer> laneOf = new HashMap<>();
        try {
            List<Set<String>> groups = whole.tiedTables();
            int count = Math.min(parallel, groups.size());
            if (count > 1 && positionOrder.isPresent()) {
                List<List<ChangeRoute>> laneRoutes = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    laneRoutes.add(new ArrayList<>());
                }
                // The biggest groups first, each to the lane with the fewest tables so far.
                List<Set<String>> biggestFirst = groups.stream()
                        .sorted(Comparator.comparingInt((Set<String> g) -> g.size()).reversed()).toList();
                Map<String, ChangeRoute> bySource = new HashMap<>();
                routes.forEach(r -> bySource.put(r.source(), r));
                for (Set<String> group : biggestFirst) {
                    int lane = 0;
                    for (int i = 1; i < count; i++) {
                        if (laneRoutes.get(i).size() < laneRoutes.get(lane).size()) {
                            lane = i;
                        }
                    }
                    for (String table : group) {
                        laneRoutes.get(lane).add(bySource.get(table));
                        laneOf.put(table, lane);
                    }
                }
                for (List<ChangeRoute> some : laneRoutes) {
                    lanes.add(sink.openChangeApplier(some));
                }
            }
        } catch (ConnectorException | RuntimeException e) {
            lanes.forEach(ChangeApplier::close);
            whole.close();
            throw e;
        }
        return new ChangeLanes(whole, List.copyOf(lanes), Map.copyOf(laneOf), order, ledger, record, runId,
                appliedPast);
    }

    /** How many connections apply tables apart (0: one connection applies everything). */
    int lanes() {
        return lanes.size();
    }

    /** The feed's record as the last committed batch left it. */
    ChangeFeedRecord record() {
        return record;
    }

    ChangeApplier whole() {
        return whole;
    }

    /**
     * Applies a batch; when it returns without throwing, the feed's record says the batch's end (a partial batch:
     * nothing committed yet). On a failure what some groups committed stays, with their tables' positions.
     */
    ChangeApplier.Applied apply(ChangeBatch batch) throws ConnectorException {
        requireNonNull(batch, "batch is null");
        if (!batch.toldApart()) {
            if (!appliedPast.isEmpty() && !batch.changes().isEmpty()) {
                // Table positions are only ever written for transactions told apart, which come before a big one.
                throw new IllegalStateException("change feed " + record.feed() + ": a batch without its "
                        + "transactions' ends after tables were applied apart up to " + appliedPastUpTo);
            }
            ChangeApplier.Applied applied = whole.apply(batch, batch.partial() ? t -> null : advancing(batch.end()));
            partsOpen = batch.partial();
            if (!batch.partial()) {
                advanced(batch.end());
            }
            return applied;
        }
        if (lanes.isEmpty() || partsOpen) {
            ChangeBatch left = appliedPast.isEmpty() ? batch : unapplied(batch, 0, batch.transactions());
            ChangeApplier.Applied applied = whole.apply(left, advancing(batch.end()));
            advanced(batch.end());
            return applied;
        }
        ChangeApplier.Applied applied = ChangeApplier.Applied.NONE;
        for (Segment segment : segments(batch)) {
            applied = applied.plus(segment.apart() ? applyApart(batch, segment) : applyTogether(batch, segment));
        }
        return applied;
    }

    /** A run of a batch's transactions, {@code from} inclusive to {@code to} exclusive. */
    record Segment(int from, int to, boolean apart) {
    }

    /**
     * The batch cut into runs of transactions that each touch one group's tables (apart) and runs of transactions
     * that touch several (together).
     */
    List<Segment> segments(ChangeBatch batch) {
        List<Segment> segments = new ArrayList<>();
        int start = 0;
        Boolean apart = null;
        int first = 0;
        for (int t = 0; t < batch.transactions(); t++) {
            int last = batch.commits().get(t).changes();
            String end = batch.commits().get(t).end();
            int lane = -1;
            boolean one = true;
            for (int c = first; c < last && one; c++) {
                RowChange change = batch.changes().get(c);
                Integer of = laneOf.get(change.relation().name());
                if (of == null || skipped(change, end)) {
                    continue;
                }
                if (lane >= 0 && lane != of) {
                    one = false;
                }
                lane = of;
            }
            first = last;
            if (apart != null && apart != one) {
                segments.add(new Segment(start, t, apart));
                start = t;
            }
            apart = one;
        }
        if (apart != null) {
            segments.add(new Segment(start, batch.transactions(), apart));
        }
        return segments;
    }

    private ChangeApplier.Applied applyTogether(ChangeBatch batch, Segment segment) throws ConnectorException {
        ChangeBatch part = unapplied(batch, segment.from(), segment.to());
        ChangeApplier.Applied applied = whole.apply(part, advancing(part.end()));
        advanced(part.end());
        return applied;
    }

    private ChangeApplier.Applied applyApart(ChangeBatch batch, Segment segment) throws ConnectorException {
        String end = batch.commits().get(segment.to() - 1).end();
        List<List<RowChange>> byLane = new ArrayList<>();
        List<Map<String, String>> positions = new ArrayList<>();
        for (int i = 0; i < lanes.size(); i++) {
            byLane.add(new ArrayList<>());
            positions.add(new LinkedHashMap<>());
        }
        int first = segment.from() == 0 ? 0 : batch.commits().get(segment.from() - 1).changes();
        for (int t = segment.from(); t < segment.to(); t++) {
            ChangeBatch.Commit commit = batch.commits().get(t);
            for (int c = first; c < commit.changes(); c++) {
                RowChange change = batch.changes().get(c);
                Integer lane = laneOf.get(change.relation().name());
                if (lane != null && !skipped(change, commit.end())) {
                    byLane.get(lane).add(change);
                    positions.get(lane).put(change.relation().name(), end);
                }
            }
            first = commit.changes();
        }
        int transactions = segment.to() - segment.from();
        List<Integer> busy = new ArrayList<>();
        for (int i = 0; i < lanes.size(); i++) {
            if (!byLane.get(i).isEmpty()) {
                busy.add(i);
            }
        }
        ChangeApplier.Applied applied = ChangeApplier.Applied.NONE;
        if (busy.size() <= 1) {
            // One group's changes only: its transaction moves the feed itself.
            if (busy.isEmpty()) {
                ledger.feeds().advance(record, end, runId, forgets(end));
            } else {
                int lane = busy.getFirst();
                applied = lanes.get(lane).apply(batch.part(byLane.get(lane), end, transactions),
                        advancing(end));
            }
            advanced(end);
            return applied;
        }
        Map<Integer, ChangeApplier.Applied> results = new java.util.concurrent.ConcurrentHashMap<>();
        Map<Integer, Throwable> failures = new java.util.concurrent.ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        ChangeFeedRecord expected = record;
        for (int lane : busy) {
            ChangeBatch part = batch.part(byLane.get(lane), end, transactions);
            threads.add(Thread.ofVirtual().name("sluice-changes-" + record.feed() + "-" + lane).start(() -> {
                try {
                    results.put(lane, lanes.get(lane).apply(part, ledger.feeds().advancingTables(expected,
                            positions.get(lane))));
                } catch (Throwable e) {
                    failures.put(lane, e);
                }
            }));
        }
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (true) {
                try {
                    thread.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // each group's transaction ends on its own: wait for it
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        tablePositions = true;
        for (int lane : busy) {
            Throwable failure = failures.get(lane);
            if (failure instanceof ConnectorException e) {
                throw e;
            } else if (failure instanceof RuntimeException e) {
                throw e;
            } else if (failure instanceof Error e) {
                throw e;
            } else if (failure != null) {
                throw new IllegalStateException(failure);
            }
            applied = applied.plus(results.get(lane));
        }
        // Every group is there: the feed moves, and the table positions it passed are forgotten with it.
        ledger.feeds().advance(record, end, runId, forgets(end));
        advanced(end);
        return applied;
    }

    /** The segment's changes less those an earlier run applied, as one batch ending where the segment ends. */
    private ChangeBatch unapplied(ChangeBatch batch, int from, int to) {
        int first = from == 0 ? 0 : batch.commits().get(from - 1).changes();
        String end = batch.commits().get(to - 1).end();
        if (appliedPast.isEmpty()) {
            return batch.part(batch.changes().subList(first, batch.commits().get(to - 1).changes()), end, to - from);
        }
        List<RowChange> left = new ArrayList<>();
        for (int t = from; t < to; t++) {
            ChangeBatch.Commit commit = batch.commits().get(t);
            for (int c = first; c < commit.changes(); c++) {
                RowChange change = batch.changes().get(c);
                if (!skipped(change, commit.end())) {
                    left.add(change);
                }
            }
            first = commit.changes();
        }
        return batch.part(left, end, to - from);
    }

    /** Whether an earlier run applied this change, of a transaction ending at {@code end}, to its table already. */
    private boolean skipped(RowChange change, String end) {
        if (appliedPast.isEmpty()) {
            return false;
        }
        String past = appliedPast.get(change.relation().name());
        return past != null && order.compare(end, past) <= 0;
    }

    private LedgerWork<Void> advancing(String end) {
        return ledger.feeds().advancing(record, end, runId, forgets(end));
    }

    /** Table positions are forgotten with the feed's move once it passes every one an earlier run left. */
    private boolean forgets(String end) {
        return tablePositions && (appliedPastUpTo == null || order.compare(end, appliedPastUpTo) >= 0);
    }

    private void advanced(String end) {
        if (forgets(end)) {
            appliedPast.clear();
            appliedPastUpTo = null;
            tablePositions = false;
        }
        record = record.at(ChangeFeedRecord.State.APPLYING, end, runId);
    }

    @Override
    public void close() {
        lanes.forEach(ChangeApplier::close);
        whole.close();
    }
}
