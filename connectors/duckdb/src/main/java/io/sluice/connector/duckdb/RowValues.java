package io.sluice.connector.duckdb;

import io.sluice.toolkit.JsonText;
import org.duckdb.DuckDBReadableVector;

import java.math.BigDecimal;
import java.util.List;

/**
 * A row of a chunk as JSON, for a row set aside: each stream column's value as its encoder reads it (numbers and
 * booleans as JSON's, the rest as text). Only rows set aside pay for it.
 */
final class RowValues {
    private RowValues() {
    }

    static String json(ColumnEncoder[] encoders, int row, List<ColumnConversion> conversions) {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < encoders.length; i++) {
            if (i > 0) {
                json.append(", ");
            }
            json.append(JsonText.quote(conversions.get(i).sourceColumn())).append(": ");
            Object value;
            try {
                value = encoders[i].valueAt(row);
            } catch (RuntimeException e) {
                value = "(unreadable: " + e.getMessage() + ")";
            }
            if (value == null) {
                json.append("null");
            } else if (value instanceof Boolean || value instanceof BigDecimal || value instanceof Long
                    || value instanceof Integer || value instanceof Short || value instanceof Byte
                    || value instanceof java.math.BigInteger
                    || (value instanceof Double d && Double.isFinite(d))
                    || (value instanceof Float f && Float.isFinite(f))) {
                json.append(value instanceof BigDecimal b ? b.toPlainString() : value.toString());
            } else {
                json.append(JsonText.value(value.toString()));
            }
        }
        return json.append('}').toString();
    }

    /** A carrier vector's value by its type, as a Java value. */
    static Object of(DuckDBReadableVector vector, int row) {
        if (vector.isNull(row)) {
            return null;
        }
        return switch (vector.getType()) {
            case BOOLEAN -> vector.getBoolean(row);
            case TINYINT -> vector.getByte(row);
            case SMALLINT -> vector.getShort(row);
            case INTEGER -> vector.getInt(row);
            case BIGINT -> vector.getLong(row);
            case UTINYINT -> vector.getUint8(row);
            case USMALLINT -> vector.getUint16(row);
            case UINTEGER -> vector.getUint32(row);
            case UBIGINT -> vector.getUint64(row);
            case HUGEINT -> vector.getHugeInt(row);
            case UHUGEINT -> vector.getUHugeInt(row);
            case FLOAT -> vector.getFloat(row);
            case DOUBLE -> vector.getDouble(row);
            case DECIMAL -> vector.getBigDecimal(row);
            case DATE -> vector.getLocalDate(row).toString();
            default -> vector.getString(row);
        };
    }
}
