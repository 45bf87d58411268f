package io.sluice.core;

import io.sluice.spi.error.ErrorCode;

import static java.util.Objects.requireNonNull;

/**
 * Every code the runner itself reports (spec codes are {@link io.sluice.core.spec.SpecCode}); docs/error-codes.md
 * says what each means and how to fix it, and a test keeps the two in step.
 */
public enum RunnerCode implements ErrorCode {
    SPEC000("the spec has errors; nothing was run"),
    RUN001("a connection's type names no installed connector"),
    RUN010("a partition's reader was opened while the stream was stopping"),
    RUN020("a partition read another number of rows than the target took"),
    RUN021("a partition read another number of rows than the source said it holds"),
    RUN030("a worker died of something no connector declares (a bug)"),
    RUN031("the JVM's heap could not hold what a worker needed (a value, or degree x values)"),
    RUN040("the stream ended with partitions it set out to copy not done (a bug)"),
    RUN050("another process of a joined run failed, so this one stopped claiming partitions"),
    RUN060("a stream set aside more rows than its rejects: max-rows or max-ratio allow"),
    RUN070("a stream follows changes (changes:) with settings that cannot carry them"),
    RUN071("a change feed's recorded position moved under this run: another run applied its changes"),
    RUN072("a change feed did not apply: a stream of its copy did not finish"),
    VERIFY001("verify found the target differs from the source's snapshot"),
    COMPARE001("compare needs digests a stream's source or target cannot compute"),
    COMPARE002("compare --stream names no stream of the spec"),
    COMPARE003("a compare was interrupted while it waited for its digests"),
    PLAN001("the stream's source reads its own target table"),
    PLAN002("a resumed partition cannot be rebuilt by its source"),
    PLAN003("a joined run (--join) on a stream that would share one process's snapshot, or keeps no ledger"),
    PLAN004("an incremental stream in a spec with ledger: off"),
    PLAN005("the run would open more connections to a server than it accepts now"),
    PLAN006("a stream's table pattern matches no table"),
    PLAN007("key: primary-key on a table pattern, and some matched tables have no primary key"),
    PLAN008("a table pattern maps two or more source tables onto one target table"),
    PLAN009("a run hook's connection has no stream with a ledger to keep the hook's mark"),
    PLAN010("a stream's rejects table is a table its source reads"),
    PLAN011("--schema-only on a stream that follows changes or reads incrementally"),
    LEDGER001("the spec keeps a ledger but the target keeps none"),
    LEDGER002("a partition already done in the ledger was committed again; the second commit was rolled back"),
    LEDGER003("a ledger write for a stream whose start was never recorded (a bug)"),
    LEDGER004("the run id already belongs to another spec in the ledger"),
    LEDGER005("a joined process lost a partition's lease to another process; its commit was rolled back"),
    MAP001("a source column has no target column of that name"),
    MAP002("a source column matches several target columns"),
    MAP003("by position, the source has more columns than the target"),
    MAP004("a plain source column maps onto a generated target column"),
    CHECK001("a check names a column the target table does not have"),
    MAP005("a columns: rule does not fit the source: a column it lacks, or a mask on a column that is not text"),
    RESUME001("--resume on a stream that keeps no ledger"),
    RESUME002("the stream's definition changed since the run started"),
    RESUME003("partitions of the run cannot be restored and a new plan splits differently"),
    RESUME004("--resume without a run id, and no unfinished run in the ledger"),
    RESUME005("--run-id names a run that already exists in the ledger"),
    RESUME006("--join without the run's id"),
    RESUME007("--force on a stream whose load mode, merge key, delete-missing or incremental settings changed"),
    RESUME008("a fresh run while an unfinished run of the spec has appended rows a fresh run would load again"),
    STATUS001("sluice status on a spec with ledger: off"),
    STATUS002("sluice status: a stream's target keeps no ledger"),
    STATUS003("sluice status --report: the report cannot be written"),
    CONNECT001("sluice lint --connect: a connector failed unexpectedly"),
    CONNECT002("sluice lint --connect: what the load will do that a reviewer should know, e.g. create the target");

    private final String summary;

    RunnerCode(String summary) {
        this.summary = requireNonNull(summary, "summary is null");
    }

    @Override
    public String summary() {
        return summary;
    }
}
