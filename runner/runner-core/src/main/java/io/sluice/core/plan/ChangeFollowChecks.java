package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.Target;

import static java.util.Objects.requireNonNull;

/**
 * What a stream that follows changes ({@code changes:}) cannot also ask: settings whose result the applied changes
 * would not keep. Checked by {@link StreamPreflight} (so {@code sluice plan} and {@code lint --connect} refuse it before
 * anything is written) and again by the run, which must never start a feed it would then apply wrongly.
 */
public final class ChangeFollowChecks {
    private ChangeFollowChecks() {
    }

    /** Refuses {@code stream} (RUN070) when its target or its settings cannot carry the source's changes. */
    public static void refuse(StreamSpec stream, Target target) {
        requireNonNull(stream, "stream is null");
        requireNonNull(target, "target is null");
        if (target.changeSink().isEmpty()) {
            throw refused(stream, "its target " + target.describe() + " cannot apply changes",
                    "load it into a PostgreSQL table, or remove changes:");
        }
        if (stream.columnRules().rules().stream().anyMatch(r -> r.expression().isPresent() || r.mask().isPresent())) {
            throw refused(stream, "its columns: compute or mask values, and changes carry the source's values as "
                    + "they are", "leave expression and mask out of a stream that follows changes");
        }
        if (stream.incremental().isPresent()) {
            throw refused(stream, "it is incremental, and a feed already carries every change after the copy",
                    "remove incremental: (or changes:)");
        }
        if (stream.rejects().isPresent()) {
            throw refused(stream, "it sets rows aside (rejects:), and a change of a row left out would have nowhere "
                    + "to go", "remove rejects: from a stream that follows changes");
        }
    }

    static SluiceException refused(StreamSpec stream, String why, String fix) {
        return new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.RUN070, "stream '" + stream.name()
                + "' follows changes, but " + why, fix);
    }
}
