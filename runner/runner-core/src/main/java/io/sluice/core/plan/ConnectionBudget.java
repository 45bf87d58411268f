package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The connections a run opens against each server at once, checked at plan time against what the server accepts
 * now, so a run with too much degree or too many parallel streams is refused before it writes anything instead of
 * failing half-way on "too many clients". Per stream: a reader per worker plus the source's session, a writer per
 * worker plus the target's claim; with {@code max-parallel-streams} n, the n hungriest streams at once.
 */
final class ConnectionBudget {
    private ConnectionBudget() {
    }

    static void check(PipelineSpec spec, List<StreamPlan> streams, Connections connections) {
        Map<String, List<Integer>> needs = new TreeMap<>();
        for (StreamPlan stream : streams) {
            int workers = stream.workers(false);
            Map<String, Integer> own = new HashMap<>();
            own.merge(stream.spec().source().connection(), workers + 1, Integer::sum);
            own.merge(stream.spec().target().connection(), workers + 1, Integer::sum);
            own.forEach((connection, n) -> needs.computeIfAbsent(connection, c -> new ArrayList<>()).add(n));
        }
        int parallel = spec.run().maxParallelStreams();
        for (Map.Entry<String, List<Integer>> entry : needs.entrySet()) {
            int need = entry.getValue().stream().sorted(Comparator.reverseOrder()).limit(parallel)
                    .mapToInt(Integer::intValue).sum();
            OptionalInt free;
            try {
                free = connections.get(entry.getKey()).freeConnections();
            } catch (ConnectorException e) {
                free = OptionalInt.empty(); // a check ahead of time only
            }
            if (free.isPresent() && need > free.getAsInt()) {
                throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.PLAN005, "the run would open up to " + need
                        + " connections to connection '" + entry.getKey() + "' at once (degree"
                        + (parallel > 1 ? " times max-parallel-streams " + parallel : "") + ", plus a session "
                        + "per stream), and its server accepts " + free.getAsInt() + " more now",
                        "lower degree or max-parallel-streams, or raise the server's max_connections (or wait for "
                                + "other clients to leave)");
            }
        }
    }
}
