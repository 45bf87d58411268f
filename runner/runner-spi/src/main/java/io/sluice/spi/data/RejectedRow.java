package io.sluice.spi.data;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A row set aside instead of loaded ({@code rejects:}): what it held and why.
 *
 * @param rowNumber its place in the partition as read, counted from 1; 0 when the target found it and cannot tell
 * @param row       the row as a JSON object of column name to value, every value as the source gave it (binary as
 *                  base64); empty when the row could not be decoded at all, then {@code rawRow} carries it
 * @param rawRow    the row's fields as base64 of their COPY bytes, a JSON object, when {@code row} is empty
 * @param column    the column the failure names, when it names one
 * @param code      the error code: Sluice's (e.g. DUCK301) for a row the client set aside, the SQLSTATE for one the
 *                  target's server refused
 * @param message   what was wrong, as the error said it
 */
public record RejectedRow(long rowNumber, Optional<String> row, Optional<String> rawRow, Optional<String> column,
                          String code, String message) {
    public RejectedRow {
        requireNonNull(row, "row is null");
        requireNonNull(rawRow, "rawRow is null");
        requireNonNull(column, "column is null");
        requireNonNull(code, "code is null");
        requireNonNull(message, "message is null");
        if (row.isEmpty() && rawRow.isEmpty()) {
            throw new IllegalArgumentException("a rejected row needs its row or its raw fields");
        }
        if (rowNumber < 0) {
            throw new IllegalArgumentException("rowNumber must not be negative: " + rowNumber);
        }
    }

    /** A row as its rejects table keeps it: whose, the row, and when it was set aside. */
    public record Stored(Origin origin, RejectedRow row, java.time.Instant rejectedAt) {
        public Stored {
            requireNonNull(origin, "origin is null");
            requireNonNull(row, "row is null");
            requireNonNull(rejectedAt, "rejectedAt is null");
        }
    }

    /** Whose rows a writer sets aside: the run, the stream, the partition (its id, as the ledger has it). */
    public record Origin(String runId, String stream, String partitionId) {
        public Origin {
            requireNonNull(runId, "runId is null");
            requireNonNull(stream, "stream is null");
            requireNonNull(partitionId, "partitionId is null");
        }
    }
}
