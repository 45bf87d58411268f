package io.sluice.spi.write;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgeredTruncate;
import io.sluice.spi.ledger.LoadMarks;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One stream's load as {@link Target#planLoad} decided it, and the handle that runs it: what was decided is fixed
 * when the handle is returned ({@link #plan()}), so no call order makes it load otherwise. Lifecycle (as Embulk's):
 * {@link #claim} -&gt; {@link #begin} once -&gt; one writer per partition (through {@link #openWriters} per worker),
 * each committed or aborted on its own -&gt; {@link #finish}, or {@link #abort} after a failure.
 */
public interface PlannedLoad {
    /** What was decided, for {@code sluice plan}: the table as the load leaves it, its statements and notes. */
    LoadPlan plan();

    /**
     * How the load waits for locks someone else holds on the target from here on: at most {@link LockWaits#timeout()},
     * telling {@code waits} meanwhile, then failing with an error that names the holder. Called before {@link #claim}.
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
    default Optional<SharedClaims> sharedClaims() {
        return Optional.empty();
    }

    /**
     * In a joined run, this process took over partitions whose holder's lease ended (the process was paused, cut off
     * or killed): ends that holder's sessions on the target, so what they hold uncommitted is rolled back now instead
     * of blocking the partitions' new writer until its lock-timeout.
     */
    default void endAbandoned(String holder) throws ConnectorException {
        java.util.Objects.requireNonNull(holder, "holder is null");
    }

    /**
     * Runs what the load needs before the first partition writes (creating the table, the shadow table of a
     * replace, dropping indexes), each step recorded in {@code marks} in the transaction that does it, so a resumed or
     * joined process of the run skips what is done.
     */
    default void begin(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /**
     * Runs what the load needs after every partition is done (building indexes, setting sequences, deleting the rows
     * a merge did not see, swapping the shadow table in), each step once per run as {@code marks} say. Not called
     * when a partition failed: a resume calls it once the rest is done.
     */
    default void finish(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /**
     * {@link #finish(LoadMarks)}, calling {@code check} once the loaded rows are complete: before they go live where
     * the load holds them back (a replace's swap), else after the last step (the default). A check that throws ends
     * the finish there.
     */
    default void finish(LoadMarks marks, LoadedRowsCheck check) throws ConnectorException {
        finish(marks);
        check.check(Optional.empty());
    }

    /**
     * Runs after the stream failed (a partition or {@link #finish} failed, not a crash or an interruption): puts back
     * what {@link #begin} took away that a failed load must not leave behind (indexes it dropped), recording that in
     * {@code marks}. A crash leaves this to the next run's {@link #begin}.
     */
    default void abort(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /** Empties the target for a {@code truncate} load, once per run, committed before writers open. */
    void truncate() throws ConnectorException;

    /**
     * Emptying the target in a ledger transaction, for the {@code truncate} load of a target with a
     * {@link Target#ledgerStore()}; empty (the default) for targets without one.
     */
    default Optional<LedgeredTruncate> ledgeredTruncate() {
        return Optional.empty();
    }

    /** The exact statement a writer runs for these columns, for {@code sluice plan}. */
    String writeStatement(List<Column> columns, CopyFormat format);

    /** The exact statement the writers of a replacing transaction run, for {@code sluice plan}. */
    default String replacingWriteStatement(List<Column> columns, CopyFormat format) {
        return writeStatement(columns, format);
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
     * Loading in one transaction that empties the target first; present for targets whose factory declares
     * {@link io.sluice.spi.connector.TargetCapabilities#replacesInOneTransaction()}, empty (the default) otherwise.
     */
    default Optional<ReplacingLoads> replacingLoads() {
        return Optional.empty();
    }

    /**
     * Running the spec's {@code before:} and {@code after:} hooks on the target; empty (the default) when it cannot,
     * which refuses a hook (SPI010).
     */
    default Optional<TargetHooks> hooks() {
        return Optional.empty();
    }

    /**
     * Once every stream is planned: {@code copies} tells, for each source relation a stream of the run copies into a
     * table of this target's connection, that table's name as {@link TargetTable#qualifiedName()} gives it (keyed by
     * {@link RelationIdentity#key()}). Returns what {@link #beginBeforeStreams} and {@link #finishAfterStreams} will do
     * with it (foreign keys between the run's tables), for the plan; the default has nothing to do.
     */
    default LoadPlan.AcrossStreams planAcrossStreams(Map<String, String> copies) throws ConnectorException {
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
     * recorded it. A crash repeats it.
     */
    default void finishAfterStreams(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /**
     * Runs after every target's {@link #finishAfterStreams}: what must follow all of them, e.g. a schema's objects,
     * which name foreign keys and indexes the other streams put back. As {@link #finishAfterStreams}, marked in this
     * stream's {@code marks}; a crash repeats it.
     */
    default void finishLast(LoadMarks marks) throws ConnectorException {
        java.util.Objects.requireNonNull(marks, "marks is null");
    }

    /** The stored relation this load writes, for the runner's same-table check; empty when unknown or not yet made. */
    default Optional<RelationIdentity> relation() throws ConnectorException {
        return Optional.empty();
    }
}
