package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBReadableVector;

/**
 * Dates, times, timestamps and intervals. PostgreSQL counts days and microseconds from 2000-01-01; DuckDB from
 * 1970-01-01. Infinite values keep their meaning on both sides.
 */
final class TemporalEncoders {
    static final long PG_EPOCH_DAYS = 10_957;
    static final long PG_EPOCH_MICROS = PG_EPOCH_DAYS * 86_400_000_000L;
    private static final int DUCKDB_DATE_INFINITY = Integer.MAX_VALUE;
    private static final int DUCKDB_DATE_NEG_INFINITY = -Integer.MAX_VALUE;

    private TemporalEncoders() {
    }

    /**
     * The carrier of a timestamp: microseconds since 1970, or Long.MAX_VALUE/MIN_VALUE for +/-infinity (epoch_us
     * alone would turn them into NULL).
     */
    static String timestampCarrier(String column) {
        return "coalesce(epoch_us(" + column + "), CASE WHEN " + column + " > '1970-01-01' THEN 9223372036854775807 "
                + "WHEN " + column + " < '1970-01-01' THEN -9223372036854775808 END)";
    }

    /** DATE into date, or into timestamp at midnight. */
    static final class DateEncoder extends VectorEncoder {
        /** PostgreSQL's first and last date, in days since 2000-01-01 (4713-01-01 BC, 5874897-12-31). */
        private static final long PG_FIRST_DATE = -2_451_545;
        private static final long PG_LAST_DATE = 2_145_031_948;
        /** The first day a PostgreSQL timestamp cannot reach (294277-01-01), in days since 2000-01-01. */
        private static final long PG_TIMESTAMP_END_DAY = 106_751_992;
        private final boolean asTimestamp;
        private final ColumnOrigin origin;

        DateEncoder(int index, boolean asTimestamp, ColumnOrigin origin) {
            super(index, DuckDBColumnType.DATE, Integer.BYTES);
            this.asTimestamp = asTimestamp;
            this.origin = java.util.Objects.requireNonNull(origin, "origin is null");
        }

        /** A date DuckDB holds and PostgreSQL cannot: refused here, naming it, rather than by the server. */
        private void checkRange(long days) throws ConnectorException {
            long pgDays = days - PG_EPOCH_DAYS;
            if (pgDays < PG_FIRST_DATE || pgDays > (asTimestamp ? PG_TIMESTAMP_END_DAY - 1 : PG_LAST_DATE)) {
                throw DataErrors.dateOutOfRange(origin, java.time.LocalDate.ofEpochDay(days).toString(),
                        asTimestamp ? "timestamp" : "date");
            }
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            long days = cells.getEpochDays(row);
            if (days == DUCKDB_DATE_INFINITY) {
                if (asTimestamp) {
                    out.writeInt8(Long.MAX_VALUE);
                } else {
                    out.writeInt4(Integer.MAX_VALUE);
                }
            } else if (days == DUCKDB_DATE_NEG_INFINITY) {
                if (asTimestamp) {
                    out.writeInt8(Long.MIN_VALUE);
                } else {
                    out.writeInt4(Integer.MIN_VALUE);
                }
            } else if (asTimestamp) {
                checkRange(days);
                out.writeInt8((days - PG_EPOCH_DAYS) * 86_400_000_000L);
            } else {
                checkRange(days);
                out.writeInt4((int) (days - PG_EPOCH_DAYS));
            }
        }
    }

    /** A BIGINT of microseconds: since 1970 for timestamps (shifted to 2000), since midnight for times. */
    static final class MicrosEncoder extends VectorEncoder {
        private final long shift;

        MicrosEncoder(int index, boolean timestamp) {
            super(index, DuckDBColumnType.BIGINT, Long.BYTES);
            this.shift = timestamp ? PG_EPOCH_MICROS : 0;
        }

        @Override
        public Object valueAt(int row) {
            if (cells.isNull(row)) {
                return null;
            }
            long micros = cells.getLong(row);
            if (micros == Long.MAX_VALUE || micros == Long.MIN_VALUE) {
                return micros > 0 ? "infinity" : "-infinity";
            }
            return shift == 0 ? java.time.LocalTime.ofNanoOfDay(Math.floorMod(micros, 86_400_000_000L) * 1000)
                    .toString() : java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                    (int) Math.floorMod(micros, 1_000_000L) * 1000, java.time.ZoneOffset.UTC).toString();
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            long micros = cells.getLong(row);
            if (micros == Long.MAX_VALUE || micros == Long.MIN_VALUE) {
                out.writeInt8(micros); // PostgreSQL's infinity and -infinity
            } else {
                out.writeInt8(micros - shift);
            }
        }
    }

    /** INTERVAL as three BIGINT carriers: months, days, microseconds (PostgreSQL's own three fields). */
    static final class IntervalEncoder implements ColumnEncoder {
        private final int index;
        private DuckDBReadableVector months;
        private DuckDBReadableVector days;
        private DuckDBReadableVector micros;

        IntervalEncoder(int index) {
            this.index = index;
        }

        static String[] carriers(String column) {
            return new String[] {
                    "datepart('year', " + column + ") * 12 + datepart('month', " + column + ")",
                    "datepart('day', " + column + ")",
                    "datepart('hour', " + column + ") * 3600000000 + datepart('minute', " + column
                            + ") * 60000000 + datepart('microseconds', " + column + ")"};
        }

        @Override
        public Object valueAt(int row) {
            if (months.isNull(row)) {
                return null;
            }
            return months.getLong(row) + " months " + days.getLong(row) + " days " + micros.getLong(row)
                    + " microseconds";
        }

        @Override
        public void bind(DuckDBDataChunkReader chunk) {
            months = chunk.vector(index);
            days = chunk.vector(index + 1);
            micros = chunk.vector(index + 2);
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (months.isNull(row)) {
                out.writeNull();
                return;
            }
            out.beginField(16);
            out.putLong(micros.getLong(row));
            out.putInt((int) days.getLong(row));
            out.putInt((int) months.getLong(row));
        }
    }
}
