package io.sluice.connector.postgres.read;

import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.read.SourceProjection;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The select list a PostgreSQL source reads (casts included) and the COPY format of the stream.
 *
 * @param digestExpressions per column, the value as the target stores it: cast to the target's full type (with
 *                          its modifier, which the target applies on input, e.g. rounding to numeric(12,2)), so a
 *                          digest of these renders like the target's digest of its columns
 */
public record PostgresProjection(CopyFormat format, List<String> expressions, List<String> notes,
                          List<String> digestExpressions) implements SourceProjection {
    public PostgresProjection {
        requireNonNull(format, "format is null");
        expressions = List.copyOf(requireNonNull(expressions, "expressions is null"));
        notes = List.copyOf(requireNonNull(notes, "notes is null"));
        digestExpressions = List.copyOf(requireNonNull(digestExpressions, "digestExpressions is null"));
        if (digestExpressions.size() != expressions.size()) {
            throw new IllegalArgumentException("one digest expression per column expected");
        }
    }
}
