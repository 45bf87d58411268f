package io.sluice.core.plan;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * A plan and the live objects it runs against: what the planner hands the resumer and the runner. The plan alone is
 * data; the bindings exist only while the connections that made them are open.
 */
public record BoundPlan(PipelinePlan plan, Map<String, StreamBinding> bindings) {
    public BoundPlan {
        requireNonNull(plan, "plan is null");
        bindings = Map.copyOf(requireNonNull(bindings, "bindings is null"));
        for (StreamPlan stream : plan.streams()) {
            if (!bindings.containsKey(stream.name())) {
                throw new IllegalArgumentException("no binding for stream " + stream.name());
            }
        }
    }

    public StreamBinding binding(StreamPlan stream) {
        return bindings.get(stream.name());
    }

    /** The same bindings under another plan of the same streams (a resumed one). */
    public BoundPlan with(PipelinePlan other) {
        return new BoundPlan(other, bindings);
    }

    /** What {@code stream} reads and writes, as its connectors name them for lineage. */
    public StreamLineage lineage(StreamPlan stream) {
        return StreamLineage.of(binding(stream));
    }
}
