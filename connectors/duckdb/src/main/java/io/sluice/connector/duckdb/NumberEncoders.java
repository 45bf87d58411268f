package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBReadableVector;

import java.math.BigDecimal;

import static java.util.Objects.requireNonNull;

/** Encoders for booleans, integers, decimals and floating point values. */
final class NumberEncoders {
    /** How an integer carrier is read: each one is the chunk API's own getter, none allocates. */
    enum IntegerRead { BYTE, SHORT, INT, LONG, UINT8, UINT16, UINT32 }

    /** The PostgreSQL binary form an exact value is written as. */
    enum NumberWrite { INT2, INT4, INT8, NUMERIC, FLOAT4, FLOAT8 }

    private NumberEncoders() {
    }

    static IntegerRead integerRead(DuckDbType.Kind kind) {
        return switch (kind) {
            case TINYINT -> IntegerRead.BYTE;
            case SMALLINT -> IntegerRead.SHORT;
            case INTEGER -> IntegerRead.INT;
            case BIGINT -> IntegerRead.LONG;
            case UTINYINT -> IntegerRead.UINT8;
            case USMALLINT -> IntegerRead.UINT16;
            case UINTEGER -> IntegerRead.UINT32;
            default -> throw new IllegalArgumentException("not a small integer: " + kind);
        };
    }

    static NumberWrite numberWrite(PgType.Base base) {
        return switch (base) {
            case INT2 -> NumberWrite.INT2;
            case INT4 -> NumberWrite.INT4;
            case INT8 -> NumberWrite.INT8;
            case NUMERIC -> NumberWrite.NUMERIC;
            case FLOAT4 -> NumberWrite.FLOAT4;
            case FLOAT8 -> NumberWrite.FLOAT8;
            default -> throw new IllegalArgumentException("not a number type: " + base);
        };
    }

    /** 10^digits when a numeric column's integer part could overflow, else 0 (no check). */
    static long limitFor(int sourceDigits, int targetDigits, int scale) {
        if (targetDigits >= sourceDigits || targetDigits + scale > 18) {
            return 0;
        }
        long limit = 1;
        for (int i = 0; i < targetDigits + scale; i++) {
            limit *= 10;
        }
        return limit;
    }

    /**
     * {@code value} when it lies in [min, max], else the DATA error naming column, file and value: the per-value check
     * that lets a wider integer (Spark writes BIGINT for every integer) load into a narrower column, as PostgreSQL's
     * own assignment casts do. A compare and a predictable branch per value.
     */
    static long checked(long value, long min, long max, ColumnOrigin origin, PgType target) throws ConnectorException {
        if (value < min || value > max) {
            throw DataErrors.outOfRange(origin, target, Long.toString(value));
        }
        return value;
    }

    static final class BooleanEncoder extends VectorEncoder {

        BooleanEncoder(int index) {
            super(index);
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
            } else {
                out.writeBoolean(vector.getBoolean(row));
            }
        }
    }

    /** Integers of up to 64 bits into int2/int4/int8 (a narrowing checked per value), numeric or float. */
    static final class IntegerEncoder extends VectorEncoder {
        private final IntegerRead read;
        private final NumberWrite write;
        private final long numericLimit;
        private final ColumnOrigin origin;
        private final PgType target;
        private final PgNumericWriter numeric = new PgNumericWriter();

        IntegerEncoder(int index, IntegerRead read, NumberWrite write, long numericLimit, ColumnOrigin origin,
                       PgType target) {
            super(index, switch (read) {
                case INT -> DuckDBColumnType.INTEGER;
                case LONG -> DuckDBColumnType.BIGINT;
                default -> null;
            }, read == IntegerRead.LONG ? Long.BYTES : Integer.BYTES);
            this.read = requireNonNull(read, "read is null");
            this.write = requireNonNull(write, "write is null");
            this.numericLimit = numericLimit;
            this.origin = requireNonNull(origin, "origin is null");
            this.target = requireNonNull(target, "target is null");
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            long value = switch (read) {
                case BYTE -> vector.getByte(row);
                case SHORT -> vector.getShort(row);
                case INT -> cells.getInt(row);
                case LONG -> cells.getLong(row);
                case UINT8 -> vector.getUint8(row);
                case UINT16 -> vector.getUint16(row);
                case UINT32 -> vector.getUint32(row);
            };
            switch (write) {
                case INT2 -> out.writeInt2((short) checked(value, Short.MIN_VALUE, Short.MAX_VALUE, origin, target));
                case INT4 -> out.writeInt4((int) checked(value, Integer.MIN_VALUE, Integer.MAX_VALUE, origin, target));
                case INT8 -> out.writeInt8(value);
                case FLOAT4 -> out.writeFloat4(value);
                case FLOAT8 -> out.writeFloat8(value);
                case NUMERIC -> {
                    if (numericLimit != 0 && (value >= numericLimit || value <= -numericLimit)) {
                        throw DataErrors.outOfRange(origin, target, Long.toString(value));
                    }
                    numeric.write(value, 0, out);
                }
            }
        }
    }

    /**
     * DECIMAL up to 18 digits, read as its unscaled BIGINT, or as integer part and scaled fraction (see
     * {@link Conversions#unscaled}), so no BigDecimal per value.
     */
    static final class DecimalEncoder implements ColumnEncoder {
        private final int index;
        private final boolean split;
        private final long power;
        private final int scale;
        private final NumberWrite write;
        private final long unscaledLimit;
        private final ColumnOrigin origin;
        private final PgType target;
        private final double divisor;
        private final PgNumericWriter numeric = new PgNumericWriter();
        private final VectorCells cells = VectorCells.forReader();
        private final VectorCells fraction; // null unless split

        DecimalEncoder(int index, boolean split, int scale, NumberWrite write, long unscaledLimit, ColumnOrigin origin,
                       PgType target) {
            this.index = index;
            this.split = split;
            this.power = (long) Math.pow(10, scale);
            this.scale = scale;
            this.write = requireNonNull(write, "write is null");
            this.unscaledLimit = unscaledLimit;
            this.origin = requireNonNull(origin, "origin is null");
            this.target = requireNonNull(target, "target is null");
            this.divisor = Math.pow(10, scale);
            this.fraction = split ? VectorCells.forReader() : null;
        }

        @Override
        public void bind(DuckDBDataChunkReader chunk) {
            cells.bind(chunk.vector(index), DuckDBColumnType.BIGINT, Long.BYTES);
            if (split) {
                fraction.bind(chunk.vector(index + 1), DuckDBColumnType.BIGINT, Long.BYTES);
            }
        }

        @Override
        public Object valueAt(int row) {
            if (cells.isNull(row)) {
                return null;
            }
            return BigDecimal.valueOf(split ? cells.getLong(row) * power + fraction.getLong(row) : cells.getLong(row),
                    scale);
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            long unscaled = split ? cells.getLong(row) * power + fraction.getLong(row) : cells.getLong(row);
            switch (write) {
                case NUMERIC -> {
                    if (unscaledLimit != 0 && (unscaled >= unscaledLimit || unscaled <= -unscaledLimit)) {
                        throw DataErrors.outOfRange(origin, target, BigDecimal.valueOf(unscaled, scale).toPlainString());
                    }
                    numeric.write(unscaled, scale, out);
                }
                case INT2 -> out.writeInt2((short) checked(unscaled, Short.MIN_VALUE, Short.MAX_VALUE, origin, target));
                case INT4 -> out.writeInt4((int) checked(unscaled, Integer.MIN_VALUE, Integer.MAX_VALUE, origin,
                        target));
                case INT8 -> out.writeInt8(unscaled);
                // exact for the <= 15 digits the plan allows: the nearest double of the decimal text
                case FLOAT8 -> out.writeFloat8(scale == 0 ? unscaled : unscaled / divisor);
                case FLOAT4 -> out.writeFloat4((float) (scale == 0 ? unscaled : unscaled / divisor));
            }
        }
    }

    /** DECIMAL wider than 18 digits, HUGEINT and the unsigned 64/128-bit integers: rare, read as objects. */
    static final class WideNumberEncoder extends VectorEncoder {
        private final DuckDbType.Kind kind;
        private final int targetIntegerDigits;
        private final ColumnOrigin origin;
        private final PgType target;
        private final PgNumericWriter numeric = new PgNumericWriter();

        WideNumberEncoder(int index, DuckDbType.Kind kind, int targetIntegerDigits, ColumnOrigin origin,
                          PgType target) {
            super(index);
            this.kind = requireNonNull(kind, "kind is null");
            this.targetIntegerDigits = targetIntegerDigits;
            this.origin = requireNonNull(origin, "origin is null");
            this.target = requireNonNull(target, "target is null");
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            BigDecimal value = switch (kind) {
                case DECIMAL -> vector.getBigDecimal(row);
                case HUGEINT -> new BigDecimal(vector.getHugeInt(row));
                case UHUGEINT -> new BigDecimal(vector.getUHugeInt(row));
                case UBIGINT -> new BigDecimal(vector.getUint64(row));
                default -> throw new IllegalStateException("not a wide number: " + kind);
            };
            if (targetIntegerDigits != Integer.MAX_VALUE
                    && value.precision() - value.scale() > targetIntegerDigits
                    && value.abs().compareTo(BigDecimal.ONE.movePointRight(targetIntegerDigits)) >= 0) {
                throw DataErrors.outOfRange(origin, target, value.toPlainString());
            }
            numeric.write(value, out);
        }
    }

    /** FLOAT and DOUBLE into real, double precision or numeric. */
    static final class FloatEncoder extends VectorEncoder {
        private final boolean single;
        private final NumberWrite write;
        private final PgNumericWriter numeric = new PgNumericWriter();

        FloatEncoder(int index, boolean single, NumberWrite write) {
            super(index);
            this.single = single;
            this.write = requireNonNull(write, "write is null");
        }

        @Override
        public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
            if (cells.isNull(row)) {
                out.writeNull();
                return;
            }
            if (single && write == NumberWrite.FLOAT4) {
                out.writeFloat4(vector.getFloat(row));
                return;
            }
            double value = single ? vector.getFloat(row) : vector.getDouble(row);
            switch (write) {
                case FLOAT8 -> out.writeFloat8(value);
                // a FLOAT's shortest decimal form, not the binary expansion of its double widening
                case NUMERIC -> numeric.write(single ? Double.parseDouble(Float.toString((float) value)) : value, out);
                default -> throw new IllegalStateException("float into " + write);
            }
        }
    }
}
