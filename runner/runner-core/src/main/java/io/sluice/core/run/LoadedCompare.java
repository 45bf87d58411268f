package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.report.Verification;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.LoadedRowsCheck;
import io.sluice.spi.write.TargetRows;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * {@code verify: compare} as the check a load runs once its rows are all written: a replace's new table before the
 * swap, a one-transaction truncate before its commit, other loads after their last step. It compares once per
 * process and stream (the first call: a one-transaction replace's commit, not its swap after); in a joined run only
 * the process the ledger names. A difference fails the load there, so what was held back never goes live.
 */
final class LoadedCompare {
    /** Differences shown in the failure's message; the run's summary lists up to {@link Verifier#LISTED}. */
    static final int IN_MESSAGE = 10;

    /** Whether this process compares (a joined run's first to ask); the ledger decides. */
    @FunctionalInterface
    interface Here {
        boolean verifies() throws ConnectorException;
    }

    private final StreamPlan plan;
    private final StreamBinding binding;
    private final Verifier verifier;
    private final AtomicReference<Verification> result = new AtomicReference<>();

    LoadedCompare(StreamPlan plan, StreamBinding binding, Verifier verifier) {
        this.plan = requireNonNull(plan, "plan is null");
        this.binding = requireNonNull(binding, "binding is null");
        this.verifier = requireNonNull(verifier, "verifier is null");
    }

    /** The check to hand the load: compares against the source as {@code session} reads it (the run's snapshot). */
    LoadedRowsCheck on(SourceSession session, Here here) {
        requireNonNull(session, "session is null");
        requireNonNull(here, "here is null");
        if (!verifier.compares()) {
            return LoadedRowsCheck.NONE;
        }
        return staged -> {
            if (result.get() != null) {
                return;
            }
            if (!here.verifies()) {
                result.set(Verification.skipped(plan.spec().verify(), "another process of the joined run compared"));
                return;
            }
            TargetRows rows = staged.isPresent() ? staged.get() : binding.target().rows().orElseThrow(() ->
                    new ConnectorException(ErrorKind.PREFLIGHT, RunnerCode.COMPARE001, binding.target().describe()
                            + " cannot list its rows", "use verify: checksum or count"));
            Verification verification = verifier.compare(session, rows);
            result.set(verification);
            if (verification.status() == Verification.Status.FAILED) {
                throw new ConnectorException(ErrorKind.VERIFICATION, RunnerCode.VERIFY001, "verify compare found "
                        + verification.detail() + ": " + shown(verification.mismatches()), (staged.isPresent()
                        ? "nothing went live: the target keeps what it held before the run. " : "the rows are "
                        + "loaded and the run is failed, not done. ") + "Look for triggers, defaults or volatile "
                        + "column expressions that change rows on the way, or writers on the target, then run "
                        + "again; sluice compare lists the rows again");
            }
        };
    }

    /** What the compare found, when it ran (or was left to another process). */
    Optional<Verification> result() {
        return Optional.ofNullable(result.get());
    }

    private static String shown(List<String> lines) {
        if (lines.size() <= IN_MESSAGE) {
            return String.join("; ", lines);
        }
        return String.join("; ", lines.subList(0, IN_MESSAGE)) + "; and " + (lines.size() - IN_MESSAGE)
                + " more in the run's summary";
    }
}
