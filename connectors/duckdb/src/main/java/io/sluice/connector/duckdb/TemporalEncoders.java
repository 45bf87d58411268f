package io.sluice.connector.duckdb;

import io.sluice.spi.ConnectorException;
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
        private final boolean asTimestamp;

        DateEncoder(int index, boolean asTimestamp) {
            super(index, DuckDBColumnType.DATE, Integer.BYTES);
            this.asTimestamp = asTimestamp;
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
                out.writeInt8((days - PG_EPOCH_DAYS) * 86_400_000_000L);
            } else {
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
