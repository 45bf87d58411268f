package io.sluice.spi.write;

import io.sluice.spi.changes.ChangeSink;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;

import java.util.List;

/**
 * The writing side of one stream: the table as it is ({@link #table()}), and {@link #planLoad}, whose
 * {@link PlannedLoad} runs the load as decided. What does not depend on a plan (the ledger, digests, rejects read back,
 * the change apply) is here.
 */
public interface Target {
    /** The target object for people, e.g. its qualified name. No secrets. */
    String describe();

    /** The table and its columns. Fails with PREFLIGHT when it is missing or the user may not write it. */
    TargetTable table() throws ConnectorException;

    /**
     * Plans the stream's load at preflight: checks that the target can do what {@code request} asks (refusing it with
     * PREFLIGHT or INVALID_SPEC and the reason otherwise, before anything is written), and returns the handle that
     * runs the load as planned. {@code source} describes the rows (for a table the load creates).
     */
    PlannedLoad planLoad(LoadRequest request, Source source) throws ConnectorException;

    /**
     * The digest of the target table's rows over {@code columns}, restricted by {@code predicate} (a partition's
     * {@link SourcePartition#portablePredicate()}) when given. Must render values like the source's digest does for
     * the same types. Empty when the target cannot compute it at that level.
     */
    default java.util.Optional<Digest> digest(List<Column> columns, java.util.Optional<String> predicate,
                                              Digest.Level level) throws ConnectorException {
        return java.util.Optional.empty();
    }

    /** Listing the table's rows by key for {@code sluice compare}; empty when the target cannot. */
    default java.util.Optional<TargetRows> rows() {
        return java.util.Optional.empty();
    }

    /**
     * How planning waits for locks someone else holds on the target (and its ledger): at most
     * {@link LockWaits#timeout()}, telling {@code waits} meanwhile, then failing with an error that names the holder.
     * Called before {@link #planLoad}; the load has its own ({@link PlannedLoad#waitForLocks}).
     */
    default void waitForLocks(LockWaits waits) {
        java.util.Objects.requireNonNull(waits, "waits is null");
    }

    /**
     * Where this target keeps the run ledger next to the data, if it can keep one. Without a ledger a spec must say
     * {@code ledger: off}, and runs cannot be resumed.
     */
    default java.util.Optional<LedgerStore> ledgerStore() {
        return java.util.Optional.empty();
    }

    /** The table this target writes, named for lineage (OpenLineage's naming); empty when it cannot tell. */
    default java.util.Optional<LineageDataset> lineageOutput() throws ConnectorException {
        return java.util.Optional.empty();
    }

    /**
     * The rows this target set aside, read back for {@code sluice rejects}; empty (the default) for targets that set
     * no rows aside (SPI011).
     */
    default java.util.Optional<StoredRejects> storedRejects() {
        return java.util.Optional.empty();
    }

    /**
     * The appliers of a source's row changes after its copy ({@code changes:}); empty when this target cannot apply
     * them (refused at plan, RUN070).
     */
    default java.util.Optional<ChangeSink> changeSink() {
        return java.util.Optional.empty();
    }
}
