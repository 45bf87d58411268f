package io.sluice.spi;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import java.util.List;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgeredTruncate;
import io.sluice.spi.ledger.LoadMarks;

/**
 * The writing side of one stream. Lifecycle: {@link #table()} (preflight) -&gt; {@link #prepare} once -&gt; one writer
 * per partition (through {@link #openWriters} per worker), each committed or aborted on its own.
 */
public interface Target {
    /** The target object for people, e.g. its qualified name. No secrets. */
    String describe();

    /** The table and its columns. Fails with PREFLIGHT when it is missing or the user may not write it. */
    TargetTable table() throws ConnectorException;

    /**
     * Plans the stream's load at preflight: checks that the target can do what {@code request} asks (refusing it with
     * PREFLIGHT or INVALID_SPEC and the reason otherwise, before anything is written), and returns the table with the
     * statements the load will run. {@code source} describes the rows (for a table the load creates). Called once,
     * before every other method but {@link #waitForLocks}; later calls load as it planned. The default serves targets
     * written before load modes grew: {@link #table()}, for append and truncate with indexes kept.
     */
    default LoadPlan planLoad(LoadRequest request, Source source) throws ConnectorException {
        java.util.Objects.requireNonNull(request, "request is null");
        java.util.Objects.requireNonNull(source, "source is null");
        if (request.mode() != LoadMode.APPEND && request.mode() != LoadMode.TRUNCATE
                || request.indexes() != LoadRequest.Indexes.KEEP) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI007, describe() + " cannot load with "
                    + "load-mode " + request.mode().name().toLowerCase(java.util.Locale.ROOT)
                    + (request.indexes() == LoadRequest.Indexes.KEEP ? "" : " and indexes: rebuild"),
                    "use load-mode append or truncate, and indexes: keep");
        }
        return LoadPlan.of(table());
    }

    /**
     * Runs what the load needs before the first partition writes (creating the table, the shadow table of a
     * replace, dropping indexes), each step recorded in {@code marks} in the transaction that does it, so a resumed or
     * joined process of the run skips what is done. Runs before {@link #prepare}.
     */
    default void beginLoad(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /**
     * Runs what the load needs after every partition is done (building indexes, setting sequences, deleting the rows
     * a merge did not see, swapping the shadow table in), each step once per run as {@code marks} say. Not called
     * when a partition failed: a resume calls it once the rest is done.
     */
    default void finishLoad(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /**
     * Runs after the stream failed (a partition or {@link #finishLoad} failed, not a crash or an interruption): puts
     * back what {@link #beginLoad} took away that a failed load must not leave behind (indexes it dropped), recording
     * that in {@code marks}, so the target is as usable as before the run. A crash leaves this to the next run's
     * {@link #beginLoad}.
     */
    default void abortLoad(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /** Empties the target for a {@code truncate} load, once per run, committed before writers open. */
    void truncate() throws ConnectorException;

    /**
     * Emptying the target in a ledger transaction, for the {@code truncate} load of a target with a
     * {@link #ledgerStore()}; empty (the default) for targets without one.
     */
    default java.util.Optional<LedgeredTruncate> ledgeredTruncate() {
        return java.util.Optional.empty();
    }

    /** The exact statement a writer runs for these columns, for {@code sluice plan}. */
    String writeStatement(List<Column> columns, CopyFormat format);

    /** The exact statement the writers of a replacing transaction run, for {@code sluice plan}. */
    default String replacingWriteStatement(List<Column> columns, CopyFormat format) {
        return writeStatement(columns, format);
    }

    /**
     * Loading in one transaction that empties the target first; present for targets whose factory declares
     * {@link TargetCapabilities#replacesInOneTransaction()}, empty (the default) otherwise.
     */
    default java.util.Optional<ReplacingLoads> replacingLoads() {
        return java.util.Optional.empty();
    }

    /** Opens a writer in its own transaction; may be called from several threads at once. */
    PartitionWriter openWriter(List<Column> columns, CopyFormat format) throws ConnectorException;

    /**
     * Writers for one worker, which writes its partitions one after another, each in its own transaction. Targets
     * that connect per writer override this to keep the connection between partitions; the default opens each
     * writer on its own.
     */
    default PartitionWriters openWriters(List<Column> columns, CopyFormat format) {
        java.util.Objects.requireNonNull(columns, "columns is null");
        java.util.Objects.requireNonNull(format, "format is null");
        return new PartitionWriters() {
            @Override
            public PartitionWriter open() throws ConnectorException {
                return openWriter(columns, format);
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * The digest of the target table's rows over {@code columns}, restricted by {@code predicate} (a partition's
     * {@link SourcePartition#portablePredicate()}) when given. Must render values like the source's digest does for
     * the same types. Empty when the target cannot compute it at that level.
     */
    default java.util.Optional<Digest> digest(List<Column> columns, java.util.Optional<String> predicate,
                                              Digest.Level level) throws ConnectorException {
        return java.util.Optional.empty();
    }

    /**
     * Once every stream is planned: {@code copies} tells, for each source relation a stream of the run copies into a
     * table of this target's connection, that table's name as {@link TargetTable#qualifiedName()} gives it (keyed by
     * {@link RelationIdentity#key()}). Returns what {@link #beginBeforeStreams} and {@link #finishAfterStreams} will do
     * with it (foreign keys between the run's tables), for the plan; the default has nothing to do.
     */
    default LoadPlan.AcrossStreams planAcrossStreams(java.util.Map<String, String> copies)
            throws ConnectorException {
        java.util.Objects.requireNonNull(copies, "copies is null");
        return LoadPlan.AcrossStreams.NONE;
    }

    /**
     * Runs before the first stream of the run starts, for a target with a ledger: what {@link #planAcrossStreams}
     * planned to do first, recorded in this stream's {@code marks} in the transaction that does it. A resume repeats
     * it: the marks tell what is done.
     */
    default void beginBeforeStreams(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /**
     * Runs once every stream of the run is done (in a resumed run, the streams done before the break too), before the
     * last stream is recorded done: what {@link #planAcrossStreams} planned, as this stream's {@code marks} of the run
     * recorded it (a target the resume did not load again knows it only from them). A crash repeats it.
     */
    default void finishAfterStreams(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /** The stored relation this target writes, for the runner's same-table check; empty when unknown. */
    default java.util.Optional<RelationIdentity> relation() throws ConnectorException {
        return java.util.Optional.empty();
    }

    /**
     * How preparing and writing wait for locks someone else holds on the target: at most {@link LockWaits#timeout()},
     * telling {@code waits} meanwhile, then failing with an error that names the holder. Called once, before
     * {@link #claim}.
     */
    default void waitForLocks(LockWaits waits) {
        java.util.Objects.requireNonNull(waits, "waits is null");
    }

    /**
     * Makes {@code runId} the only run loading this target until the claim is closed. When another run holds it, waits
     * as {@link #waitForLocks} says, then fails (PREFLIGHT, nothing written) naming the run, host and process that
     * hold it. Targets that cannot claim return {@link TargetClaim#NONE}.
     */
    default TargetClaim claim(String runId) throws ConnectorException {
        java.util.Objects.requireNonNull(runId, "runId is null");
        return TargetClaim.NONE;
    }

    /**
     * The claim the processes of a joined run ({@code --join}) share; empty when this target cannot be loaded by
     * several processes of one run (refused, SPI005).
     */
    default java.util.Optional<SharedClaims> sharedClaims() {
        return java.util.Optional.empty();
    }

    /**
     * In a joined run, this process took over partitions whose holder's lease ended (the process was paused, cut off
     * or killed): ends that holder's sessions on the target, so what they hold uncommitted is rolled back now instead
     * of blocking the partitions' new writer until its lock-timeout. The holder, if it wakes, finds its partitions
     * lost (and its commits refused) as it would anyway.
     */
    default void endAbandoned(String holder) throws ConnectorException {
        java.util.Objects.requireNonNull(holder, "holder is null");
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
     * Running the spec's {@code before:} and {@code after:} hooks on the target; empty (the default) when it cannot,
     * which refuses a hook (SPI010).
     */
    default java.util.Optional<TargetHooks> hooks() {
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
