package io.sluice.core.plan;

import io.sluice.core.spec.PipelineSpec;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The plan of a whole spec: one {@link StreamPlan} per stream, in spec order. */
public record PipelinePlan(PipelineSpec spec, List<StreamPlan> streams) {
    public PipelinePlan {
        requireNonNull(spec, "spec is null");
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
    }
}
