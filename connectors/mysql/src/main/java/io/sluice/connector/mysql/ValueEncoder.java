// Over 450 lines: one small encoder per MySQL type family, side by side as one table of checks.
package io.sluice.connector.mysql;

import io.sluice.connector.mysql.MySqlType.Kind;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import io.sluice.toolkit.copy.NumericWriter;
import io.sluice.toolkit.copy.PgTypes;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Reads one column of the driver's row and writes it as PostgreSQL's binary COPY field of the target column's type.
 * Every value is checked where PostgreSQL would refuse it or a narrower type would change it: out of range, a zero
 * date, a NUL in text fail the partition naming the column and the value (never a silent change).
 */
abstract class ValueEncoder {
    /** PostgreSQL's epoch (2000-01-01) in days since 1970-01-01. */
    static final long PG_EPOCH_DAYS = 10_957;
    private static final byte[] JSONB_VERSION = {1};

    final int index;
    final String column;

    ValueEncoder(int index, String column) {
        this.index = index;
        this.column = requireNonNull(column, "column is null");
    }

    /**
     * The encoder one reader uses: a projection's encoders are shared by the stream's readers, and one that keeps
     * scratch space gives each reader its own.
     */
    ValueEncoder forReader() {
        return this;
    }

    /** This encoder for a stream whose {@code nul-bytes: strip} removes NUL characters from text. */
    ValueEncoder strippingNul() {
        return this;
    }

    /** Writes column {@link #index} of the current row (a NULL as NULL). */
    abstract void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException;

    ConnectorException refused(MySqlCode code, String what, String fix) {
        return new ConnectorException(ErrorKind.DATA, code, "column " + column + ": " + what, fix);
    }

    /**
     * The encoder that writes a {@code source} value into a {@code target} column; fails with MY201 naming both
     * types when no conversion keeps every value.
     */
    static ValueEncoder plan(int index, String column, MySqlType source, Column target) throws ConnectorException {
        int oid = target.copyTypeOid() != 0 ? target.copyTypeOid() : PgTypes.oid(target.typeName());
        Kind kind = source.kind();
        String to = target.typeName();
        ValueEncoder encoder = switch (kind) {
            case BOOLEAN -> oid == PgTypes.BOOL ? new Bool(index, column) : integers(index, column, oid);
            case INT2, INT4, INT8, YEAR -> integers(index, column, oid);
            case UINT8 -> oid == PgTypes.NUMERIC ? new Decimal(index, column)
                    : oid == PgTypes.INT8 ? new Int(index, column, 8) : null;
            case FLOAT4 -> oid == PgTypes.FLOAT4 || oid == PgTypes.FLOAT8
                    ? new Floating(index, column, oid == PgTypes.FLOAT4) : null;
            case FLOAT8 -> oid == PgTypes.FLOAT8 ? new Floating(index, column, false) : null;
            case DECIMAL -> oid == PgTypes.NUMERIC ? new Decimal(index, column) : null;
            case TEXT -> null;
            case JSON -> oid == PgTypes.JSONB ? new Jsonb(index, column) : null;
            case BYTES -> oid == PgTypes.BYTEA ? new Bytes(index, column, false) : null;
            case GEOMETRY -> oid == PgTypes.BYTEA ? new Bytes(index, column, true) : null;
            case BIT -> oid == PgTypes.BIT || oid == PgTypes.VARBIT ? new Bit(index, column, source.length()) : null;
            case DATE -> oid == PgTypes.DATE ? new Date(index, column)
                    : oid == PgTypes.TIMESTAMP ? new Timestamp(index, column, true) : null;
            case DATETIME -> oid == PgTypes.TIMESTAMP ? new Timestamp(index, column, false) : null;
            // The session reads TIMESTAMP in UTC (time_zone = '+00:00'): the instant, for either target.
            case TIMESTAMP -> oid == PgTypes.TIMESTAMPTZ || oid == PgTypes.TIMESTAMP
                    ? new Timestamp(index, column, false) : null;
            case TIME -> oid == PgTypes.INTERVAL ? new Interval(index, column) : null;
        };
        if (encoder == null && TEXTS.contains(oid) && kind != Kind.BYTES && kind != Kind.GEOMETRY) {
            // the value as the server renders it; a string's bytes as they come
            encoder = new Text(index, column, kind == Kind.TEXT); // (MySQL's JSON type refuses getBytes)
        }
        if (encoder == null) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY201, "column " + column + " is "
                    + source.declared() + " in the source and " + to + " in the target: no conversion keeps every "
                    + "value", "make the target column " + source.postgresType() + " (what create: if-missing "
                    + "makes), or cast in a query: source");
        }
        return encoder;
    }

    private static final Set<Integer> TEXTS = Set.of(PgTypes.TEXT, PgTypes.VARCHAR, PgTypes.BPCHAR, PgTypes.JSON);

    private static ValueEncoder integers(int index, String column, int oid) {
        return switch (oid) {
            case PgTypes.INT2 -> new Int(index, column, 2);
            case PgTypes.INT4 -> new Int(index, column, 4);
            case PgTypes.INT8 -> new Int(index, column, 8);
            case PgTypes.NUMERIC -> new Decimal(index, column);
            default -> null;
        };
    }

    static final class Bool extends ValueEncoder {
        Bool(int index, String column) {
            super(index, column);
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            long v = rs.getLong(index);
            if (rs.wasNull()) {
                out.writeNull();
            } else if (v == 0 || v == 1) {
                out.writeBoolean(v == 1);
            } else {
                throw refused(MySqlCode.MY302, "value " + v + " of a TINYINT(1) is neither 0 nor 1, and the target "
                        + "is boolean", "make the target column smallint, or map the values in a query: source");
            }
        }
    }

    static final class Int extends ValueEncoder {
        private final int bytes;

        Int(int index, String column, int bytes) {
            super(index, column);
            this.bytes = bytes;
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            String text = null;
            long v;
            try {
                v = rs.getLong(index);
            } catch (SQLException e) {
                // A BIGINT UNSIGNED above 2^63-1 into bigint.
                text = rs.getString(index);
                throw refused(MySqlCode.MY302, "value " + text + " does not fit the target's bigint",
                        "make the target column numeric(20,0)");
            }
            if (rs.wasNull()) {
                out.writeNull();
                return;
            }
            switch (bytes) {
                case 2 -> {
                    if (v < Short.MIN_VALUE || v > Short.MAX_VALUE) {
                        throw refused(MySqlCode.MY302, "value " + v + " does not fit the target's smallint",
                                "make the target column integer or wider");
                    }
                    out.writeInt2((short) v);
                }
                case 4 -> {
                    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                        throw refused(MySqlCode.MY302, "value " + v + " does not fit the target's integer",
                                "make the target column bigint");
                    }
                    out.writeInt4((int) v);
                }
                default -> out.writeInt8(v);
            }
        }
    }

    /** FLOAT and DOUBLE into real or double precision. */
    static final class Floating extends ValueEncoder {
        private final boolean real;

        Floating(int index, String column, boolean real) {
            super(index, column);
            this.real = real;
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            double v = rs.getDouble(index);
            if (rs.wasNull()) {
                out.writeNull();
            } else if (real) {
                out.writeFloat4((float) v);
            } else {
                out.writeFloat8(v);
            }
        }
    }

    /** Any integer or DECIMAL into numeric: the server's decimal text, exactly. */
    static final class Decimal extends ValueEncoder {
        private final NumericWriter numeric = new NumericWriter();

        Decimal(int index, String column) {
            super(index, column);
        }

        @Override
        ValueEncoder forReader() {
            return new Decimal(index, column); // its writer's digit groups are scratch space
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            String text = rs.getString(index);
            if (text == null) {
                out.writeNull();
                return;
            }
            numeric.writeDecimal(text, out);
        }
    }

    /**
     * The value as the server renders it (ENUM, SET and text types, or any non-binary type into text). A string
     * column's bytes are already UTF-8 (the session's character set: the server converts latin1 and the rest), so
     * they are copied as they come, never decoded into a String and encoded back.
     */
    static final class Text extends ValueEncoder {
        private final boolean utf8;
        private final boolean strip;

        Text(int index, String column, boolean utf8) {
            this(index, column, utf8, false);
        }

        private Text(int index, String column, boolean utf8, boolean strip) {
            super(index, column);
            this.utf8 = utf8;
            this.strip = strip;
        }

        @Override
        ValueEncoder strippingNul() {
            return new Text(index, column, utf8, true);
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            if (utf8) {
                byte[] v = rs.getBytes(index);
                if (v == null) {
                    out.writeNull();
                    return;
                }
                int nul = nul(v);
                if (nul >= 0 && !strip) {
                    throw nulRefused(nul, v.length);
                }
                if (nul >= 0) { // UTF-8 holds a zero byte for U+0000 only
                    java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream(v.length);
                    for (byte b : v) {
                        if (b != 0) {
                            kept.write(b);
                        }
                    }
                    v = kept.toByteArray();
                }
                out.writeBytes(v, 0, v.length);
                return;
            }
            String v = rs.getString(index);
            if (v == null) {
                out.writeNull();
                return;
            }
            if (v.indexOf('\0') >= 0) {
                if (!strip) {
                    throw nulRefused(v.indexOf('\0'), v.length());
                }
                v = v.replace("\0", "");
            }
            out.writeText(v);
        }

        private ConnectorException nulRefused(int at, int length) {
            return refused(MySqlCode.MY303, "a value holds a NUL character (at " + at + " of " + length + "), "
                    + "which PostgreSQL text cannot hold", "strip it in a query: source, e.g. REPLACE(" + column
                    + ", CHAR(0), '')");
        }
    }

    /** Where the first NUL byte is (UTF-8 has one only for U+0000), or -1. */
    static int nul(byte[] v) {
        for (int i = 0; i < v.length; i++) {
            if (v[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    static final class Jsonb extends ValueEncoder {
        Jsonb(int index, String column) {
            super(index, column);
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            String v = rs.getString(index); // MySQL's own JSON type cannot be read as bytes (MariaDB's can)
            if (v == null) {
                out.writeNull();
                return;
            }
            byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
            if (nul(utf8) >= 0) {
                throw refused(MySqlCode.MY303, "a JSON value holds a NUL character (\\u0000 escaped is fine, a raw "
                        + "one is not)", "fix the value at the source");
            }
            out.beginField(utf8.length + 1);
            out.putBytes(JSONB_VERSION, 0, 1);
            out.putBytes(utf8, 0, utf8.length);
        }
    }

    /** Binary strings and BLOBs as they are; geometries as WKB (MySQL's 4-byte SRID prefix left off). */
    static final class Bytes extends ValueEncoder {
        private final boolean geometry;

        Bytes(int index, String column, boolean geometry) {
            super(index, column);
            this.geometry = geometry;
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            byte[] v = rs.getBytes(index);
            if (v == null) {
                out.writeNull();
            } else if (geometry) {
                out.writeBytes(v, 4, v.length - 4);
            } else {
                out.writeBytes(v, 0, v.length);
            }
        }
    }

    /** BIT(n): the server's big-endian integer of n bits, written as PostgreSQL's bit string (first bit highest). */
    static final class Bit extends ValueEncoder {
        private final int bits;

        Bit(int index, String column, int bits) {
            super(index, column);
            this.bits = Math.max(bits, 1);
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            byte[] raw = rs.getBytes(index);
            if (raw == null) {
                out.writeNull();
                return;
            }
            BigInteger value = new BigInteger(1, raw);
            int bytes = (bits + 7) / 8;
            byte[] left = value.shiftLeft(bytes * 8 - bits).toByteArray();
            out.beginField(4 + bytes);
            out.putInt(bits);
            // toByteArray may add a sign byte or drop leading zeros: take the low {bytes} bytes.
            byte[] field = new byte[bytes];
            int copy = Math.min(bytes, left.length);
            System.arraycopy(left, left.length - copy, field, bytes - copy, copy);
            out.putBytes(field, 0, bytes);
        }
    }

    /** Parses the server's {@code YYYY-MM-DD} (and a time after it) without the driver's zero-date rules. */
    abstract static class Temporal extends ValueEncoder {
        Temporal(int index, String column) {
            super(index, column);
        }

        /** Days since 2000-01-01; refuses a zero date or a zero month or day. */
        long days(String v) throws ConnectorException {
            int year = digits(v, 0, 4);
            int month = digits(v, 5, 2);
            int day = digits(v, 8, 2);
            if (month == 0 || day == 0) {
                throw refused(MySqlCode.MY301, "value '" + v + "' is a zero date (or has a zero month or day), "
                        + "which PostgreSQL cannot hold", "turn zero dates into NULL in a query: source, e.g. "
                        + "NULLIF(" + column + ", '0000-00-00'), or fix them at the source");
            }
            if (month > 12 || day > daysInMonth(year, month)) {
                throw refused(MySqlCode.MY301, "value '" + v + "' is not a valid date (there is no day " + day
                        + " in month " + month + " of " + year + ")", "fix it at the source, or read it as text in a "
                        + "query: source");
            }
            return epochDay(year, month, day) - PG_EPOCH_DAYS;
        }

        static int daysInMonth(int year, int month) {
            return switch (month) {
                case 2 -> year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
                case 4, 6, 9, 11 -> 30;
                default -> 31;
            };
        }

        /** Days since 1970-01-01 of a proleptic Gregorian date, by arithmetic (no object per value). */
        static long epochDay(int year, int month, int day) {
            long y = month <= 2 ? year - 1 : year;
            long era = Math.floorDiv(y, 400);
            long yearOfEra = y - era * 400;
            long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
            long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
            return era * 146_097 + dayOfEra - 719_468;
        }

        /** Microseconds of {@code HH:MM:SS[.ffffff]} starting at {@code at}. */
        static long micros(String v, int at) {
            return digits(v, at, 2) * 3_600_000_000L + minuteMicros(v, at + 3);
        }

        /** Microseconds of {@code MM:SS[.ffffff]} starting at {@code at}. */
        static long minuteMicros(String v, int at) {
            long minutes = digits(v, at, 2);
            long seconds = digits(v, at + 3, 2);
            long micros = 0;
            if (v.length() > at + 5 && v.charAt(at + 5) == '.') {
                int scale = 0;
                for (int i = at + 6; i < v.length() && scale < 6; i++, scale++) {
                    micros = micros * 10 + (v.charAt(i) - '0');
                }
                for (; scale < 6; scale++) {
                    micros *= 10;
                }
            }
            return (minutes * 60 + seconds) * 1_000_000L + micros;
        }

        static int digits(String v, int at, int count) {
            int n = 0;
            for (int i = at; i < at + count; i++) {
                n = n * 10 + (v.charAt(i) - '0');
            }
            return n;
        }
    }

    static final class Date extends Temporal {
        Date(int index, String column) {
            super(index, column);
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            String v = rs.getString(index);
            if (v == null) {
                out.writeNull();
            } else {
                out.writeInt4((int) days(v));
            }
        }
    }

    /** DATETIME and TIMESTAMP (read in UTC), or a DATE at midnight, as microseconds since 2000-01-01. */
    static final class Timestamp extends Temporal {
        private final boolean dateOnly;

        Timestamp(int index, String column, boolean dateOnly) {
            super(index, column);
            this.dateOnly = dateOnly;
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            String v = rs.getString(index);
            if (v == null) {
                out.writeNull();
                return;
            }
            long micros = days(v) * 86_400_000_000L;
            if (!dateOnly && v.length() > 10) {
                micros += micros(v, 11);
            }
            out.writeInt8(micros);
        }
    }

    /** TIME (-838:59:59 to 838:59:59, a duration as much as a time of day) as an interval of microseconds. */
    static final class Interval extends Temporal {
        Interval(int index, String column) {
            super(index, column);
        }

        @Override
        void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
            String v = rs.getString(index);
            if (v == null) {
                out.writeNull();
                return;
            }
            boolean negative = v.charAt(0) == '-';
            int start = negative ? 1 : 0;
            int colon = v.indexOf(':', start);
            long micros = digits(v, start, colon - start) * 3_600_000_000L + minuteMicros(v, colon + 1);
            out.beginField(16);
            out.putLong(negative ? -micros : micros);
            out.putInt(0);
            out.putInt(0);
        }
    }
}
