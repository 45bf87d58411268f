package io.sluice.core.run.report;

import io.sluice.core.spec.VerifyMode;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of {@code verify:} for one stream. Whatever the mode, every committed partition was also checked for
 * rows read equal rows written ({@link StreamReport#rowCountsMatch()}).
 *
 * @param scope      {@code partition} when each partition was compared on its own, {@code stream} when only totals
 *                   could be (e.g. ctid partitions have no meaning on the target)
 * @param mismatches one line per partition (or the stream) whose two sides differ
 */
public record Verification(VerifyMode mode, Status status, String scope, String detail, List<String> mismatches) {
    public enum Status { NOT_REQUESTED, PASSED, FAILED, SKIPPED }

    /** The ledger mark of a stream's run that keeps its {@code verify: compare} outcome ({@link #outcome()}). */
    public static final String COMPARE_MARK = "verify-compare";

    public Verification {
        requireNonNull(mode, "mode is null");
        requireNonNull(status, "status is null");
        requireNonNull(scope, "scope is null");
        requireNonNull(detail, "detail is null");
        mismatches = List.copyOf(requireNonNull(mismatches, "mismatches is null"));
    }

    /** One line for people: the status and what was found. */
    public String outcome() {
        return status.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + (detail.isEmpty() ? ""
                : ": " + detail);
    }

    public static Verification notRequested() {
        return new Verification(VerifyMode.NONE, Status.NOT_REQUESTED, "stream", "", List.of());
    }

    public static Verification skipped(VerifyMode mode, String why) {
        return new Verification(mode, Status.SKIPPED, "stream", why, List.of());
    }
}
