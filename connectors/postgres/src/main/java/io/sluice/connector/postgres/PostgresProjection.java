package io.sluice.connector.postgres;

import io.sluice.spi.CopyFormat;
import io.sluice.spi.SourceProjection;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The select list a PostgreSQL source reads (casts included) and the COPY format of the stream. */
record PostgresProjection(CopyFormat format, List<String> expressions, List<String> notes)
        implements SourceProjection {
    PostgresProjection {
        requireNonNull(format, "format is null");
        expressions = List.copyOf(requireNonNull(expressions, "expressions is null"));
        notes = List.copyOf(requireNonNull(notes, "notes is null"));
    }
}
