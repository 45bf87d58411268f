package io.sluice.connector.jdbc;

import io.sluice.connector.jdbc.JdbcType.Kind;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import io.sluice.toolkit.copy.NumericWriter;
import io.sluice.toolkit.copy.PgTypes;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Reads one column through the driver's typed getters and writes it as a binary COPY field of the target's type. */
final class JdbcEncoder {
    private static final long PG_EPOCH_DAYS = 10_957;
    private static final long PG_EPOCH_SECONDS = PG_EPOCH_DAYS * 86_400;

    private final int index;
    private final String column;
    private final Kind read;
    private final int target;
    private final NumericWriter numeric = new NumericWriter();

    private JdbcEncoder(int index, String column, Kind read, int target) {
        this.index = index;
        this.column = column;
        this.read = read;
        this.target = target;
    }

    /** The encoder for one reader (it keeps scratch space): a copy of this plan's. */
    JdbcEncoder forReader() {
        return new JdbcEncoder(index, column, read, target);
    }

    /** Fails with JDBC201 when no conversion keeps every value of {@code source} in {@code targetColumn}. */
    static JdbcEncoder plan(int index, String column, JdbcType source, Column targetColumn)
            throws ConnectorException {
        int oid = targetColumn.copyTypeOid() != 0 ? targetColumn.copyTypeOid() : PgTypes.oid(targetColumn.typeName());
        Kind kind = source.kind();
        boolean fits = switch (oid) {
            case PgTypes.TEXT, PgTypes.VARCHAR, PgTypes.BPCHAR -> kind != Kind.BYTES;
            case PgTypes.BOOL -> kind == Kind.BOOLEAN;
            case PgTypes.INT2 -> kind == Kind.INT2;
            case PgTypes.INT4 -> kind == Kind.INT2 || kind == Kind.INT4;
            case PgTypes.INT8 -> kind == Kind.INT2 || kind == Kind.INT4 || kind == Kind.INT8;
            case PgTypes.NUMERIC -> kind == Kind.INT2 || kind == Kind.INT4 || kind == Kind.INT8 || kind == Kind.NUMERIC;
            case PgTypes.FLOAT4 -> kind == Kind.FLOAT4;
            case PgTypes.FLOAT8 -> kind == Kind.FLOAT4 || kind == Kind.FLOAT8;
            case PgTypes.BYTEA -> kind == Kind.BYTES;
            case PgTypes.DATE -> kind == Kind.DATE;
            case PgTypes.TIME -> kind == Kind.TIME;
            case PgTypes.TIMESTAMP -> kind == Kind.TIMESTAMP || kind == Kind.DATE;
            case PgTypes.TIMESTAMPTZ -> kind == Kind.TIMESTAMPTZ;
            default -> false;
        };
        if (!fits) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, JdbcCode.JDBC201, "column " + column + " is "
                    + source.typeName() + " in the source and " + targetColumn.typeName() + " in the target",
                    "make the target column " + source.postgresType() + " (what create: if-missing makes), or cast "
                    + "in a query: source");
        }
        boolean text = oid == PgTypes.TEXT || oid == PgTypes.VARCHAR || oid == PgTypes.BPCHAR;
        return new JdbcEncoder(index, column, text ? Kind.TEXT : kind, oid);
    }

    void encode(ResultSet rs, BinaryCopyEncoder out) throws SQLException, ConnectorException {
        switch (read) {
            case BOOLEAN -> {
                boolean v = rs.getBoolean(index);
                if (rs.wasNull()) {
                    out.writeNull();
                } else {
                    out.writeBoolean(v);
                }
            }
            case INT2, INT4, INT8 -> {
                long v = rs.getLong(index);
                if (rs.wasNull()) {
                    out.writeNull();
                } else if (target == PgTypes.INT2) {
                    out.writeInt2((short) v);
                } else if (target == PgTypes.INT4) {
                    out.writeInt4((int) v);
                } else if (target == PgTypes.INT8) {
                    out.writeInt8(v);
                } else {
                    numeric.write(BigDecimal.valueOf(v), out);
                }
            }
            case FLOAT4 -> {
                float v = rs.getFloat(index);
                if (rs.wasNull()) {
                    out.writeNull();
                } else if (target == PgTypes.FLOAT8) {
                    out.writeFloat8(v);
                } else {
                    out.writeFloat4(v);
                }
            }
            case FLOAT8 -> {
                double v = rs.getDouble(index);
                if (rs.wasNull()) {
                    out.writeNull();
                } else {
                    out.writeFloat8(v);
                }
            }
            case NUMERIC -> {
                BigDecimal v = rs.getBigDecimal(index);
                if (v == null) {
                    out.writeNull();
                } else {
                    numeric.write(v, out);
                }
            }
            case BYTES -> {
                byte[] v = rs.getBytes(index);
                if (v == null) {
                    out.writeNull();
                } else {
                    out.writeBytes(v, 0, v.length);
                }
            }
            case DATE -> {
                LocalDate v = rs.getObject(index, LocalDate.class);
                if (v == null) {
                    out.writeNull();
                } else if (target == PgTypes.TIMESTAMP) {
                    out.writeInt8((v.toEpochDay() - PG_EPOCH_DAYS) * 86_400_000_000L);
                } else {
                    out.writeInt4((int) (v.toEpochDay() - PG_EPOCH_DAYS));
                }
            }
            case TIME -> {
                LocalTime v = rs.getObject(index, LocalTime.class);
                if (v == null) {
                    out.writeNull();
                } else {
                    out.writeInt8(v.toNanoOfDay() / 1_000);
                }
            }
            case TIMESTAMP -> {
                LocalDateTime v = rs.getObject(index, LocalDateTime.class);
                if (v == null) {
                    out.writeNull();
                } else {
                    out.writeInt8(micros(v.toEpochSecond(ZoneOffset.UTC), v.getNano()));
                }
            }
            case TIMESTAMPTZ -> {
                OffsetDateTime v = rs.getObject(index, OffsetDateTime.class);
                if (v == null) {
                    out.writeNull();
                } else {
                    out.writeInt8(micros(v.toEpochSecond(), v.getNano()));
                }
            }
            case TEXT -> {
                String v = rs.getString(index);
                if (v == null) {
                    out.writeNull();
                } else if (v.indexOf('\0') >= 0) {
                    throw new ConnectorException(ErrorKind.DATA, JdbcCode.JDBC201, "column " + column + ": a value "
                            + "holds a NUL character, which PostgreSQL text cannot hold", "strip it in a query: "
                            + "source");
                } else {
                    out.writeText(v);
                }
            }
        }
    }

    private static long micros(long epochSecond, int nanos) {
        return (epochSecond - PG_EPOCH_SECONDS) * 1_000_000L + nanos / 1_000;
    }
}
