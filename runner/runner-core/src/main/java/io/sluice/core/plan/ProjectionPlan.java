package io.sluice.core.plan;

import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.read.SourceProjection;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How the source reads the mapped columns, as plain data: the COPY format, one expression per column pair (as plans
 * show them), and the decisions a person should see.
 */
public record ProjectionPlan(CopyFormat format, List<String> expressions, List<String> notes) {
    public ProjectionPlan {
        requireNonNull(format, "format is null");
        expressions = List.copyOf(requireNonNull(expressions, "expressions is null"));
        notes = List.copyOf(requireNonNull(notes, "notes is null"));
    }

    public static ProjectionPlan of(SourceProjection projection) {
        return of(projection, List.of());
    }

    /** The source's projection with what the mapping decided about the columns ({@code mappingNotes}) first. */
    public static ProjectionPlan of(SourceProjection projection, List<String> mappingNotes) {
        requireNonNull(projection, "projection is null");
        List<String> notes = new java.util.ArrayList<>(requireNonNull(mappingNotes, "mappingNotes is null"));
        notes.addAll(projection.notes());
        return new ProjectionPlan(projection.format(), projection.expressions(), notes);
    }
}
