package io.sluice.spi;

import java.util.List;

/** How a source reads the mapped columns: one expression per column pair, and the stream's COPY format. */
public interface SourceProjection {
    CopyFormat format();

    /** One expression per column pair, in pair order, as shown in plans (e.g. {@code "qty"::numeric(12,2)}). */
    List<String> expressions();

    /** Decisions a person should see in {@code plan}, e.g. why the stream falls back to text COPY. */
    default List<String> notes() {
        return List.of();
    }
}
