package io.sluice.spi.read;

import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;

import java.util.List;

/** How a source reads the mapped columns: one expression per column pair, and the stream's COPY format. */
public interface SourceProjection {
    CopyFormat format();

    /** One expression per column pair, in pair order, as shown in plans (e.g. {@code "qty"::numeric(12,2)}). */
    List<String> expressions();

    /**
     * Fails, naming the column, when {@code sluice compare} could not hash a projected column's values as the target
     * prints them; checked at plan for {@code verify: compare} and before a compare reads anything. Nothing to check
     * for a source that renders every column it reads (one that compares no rows at all says so by its
     * capabilities).
     */
    default void requireComparable() throws ConnectorException {
    }

    /** Decisions a person should see in {@code plan}, e.g. why the stream falls back to text COPY. */
    default List<String> notes() {
        return List.of();
    }
}
