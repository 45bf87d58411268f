package io.sluice.connector.duckdb;

import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.math.BigDecimal;

import static java.util.Objects.requireNonNull;

/**
 * A DuckDB LIST into a one-dimensional PostgreSQL array. The chunk API has no LIST getter, so the carrier is
 * {@code to_json(list_transform(col, x -> <element as text>))}: a JSON array of strings and nulls, parsed here and
 * written in the binary array format (ndim, has-null flag, element OID, size, lower bound 1, elements). Lists are
 * rare in bulk loads; this path allocates per element.
 */
final class ArrayEncoder extends VectorEncoder {
    private final PgType target;
    private final PgType element;
    private final ColumnOrigin origin;
    private final ScratchBytes elements = new ScratchBytes();
    private final ScratchBytes field = new ScratchBytes();
    private final StringBuilder text = new StringBuilder();
    private final PgNumericWriter numeric = new PgNumericWriter();
    private final long[] uuid = new long[2];

    ArrayEncoder(int index, PgType target, ColumnOrigin origin) {
        super(index);
        this.target = requireNonNull(target, "target is null");
        this.element = target.element().orElseThrow(() -> new IllegalArgumentException("not an array: " + target));
        this.origin = requireNonNull(origin, "origin is null");
    }

    /** The text DuckDB gives each element: the form {@link #writeElement} parses. */
    static String elementText(DuckDbType type, String x) {
        return switch (type.kind()) {
            case DATE -> "CASE WHEN isinf(" + x + ") THEN CAST(" + x + " AS VARCHAR) ELSE CAST(date_diff('day', DATE "
                    + "'2000-01-01', " + x + ") AS VARCHAR) END";
            case TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS, TIMESTAMP_TZ -> "CASE WHEN isinf(" + x
                    + ") THEN CAST(" + x + " AS VARCHAR) ELSE CAST(epoch_us(" + x + ") - "
                    + TemporalEncoders.PG_EPOCH_MICROS + " AS VARCHAR) END";
            case TIME, TIME_NS -> "CAST(epoch_us(" + x + ") AS VARCHAR)";
            case BLOB -> "hex(" + x + ")";
            default -> "CAST(" + x + " AS VARCHAR)";
        };
    }

    @Override
    public void encode(int row, BinaryCopyEncoder out) throws ConnectorException {
        String json = vector.getString(row);
        if (json == null) {
            out.writeNull();
            return;
        }
        elements.clear();
        int count = 0;
        boolean hasNull = false;
        int i = skipSpace(json, 0);
        if (i >= json.length() || json.charAt(i) != '[') {
            throw DataErrors.unreadable(origin, target, json, "list carrier is not a JSON array");
        }
        i = skipSpace(json, i + 1);
        while (i < json.length() && json.charAt(i) != ']') {
            if (json.startsWith("null", i)) {
                elements.putInt(-1);
                hasNull = true;
                i += 4;
            } else {
                i = readString(json, i);
                writeElement();
            }
            count++;
            i = skipSpace(json, i);
            if (i < json.length() && json.charAt(i) == ',') {
                i = skipSpace(json, i + 1);
            }
        }
        field.clear();
        if (count == 0) {
            field.putInt(0); // ndim 0: the empty array
            field.putInt(0);
            field.putInt(element.oid());
        } else {
            field.putInt(1);
            field.putInt(hasNull ? 1 : 0);
            field.putInt(element.oid());
            field.putInt(count);
            field.putInt(1);
            field.putBytes(elements.array(), 0, elements.length());
        }
        out.writeBytes(field.array(), 0, field.length());
    }

    private void writeElement() throws ConnectorException {
        int lengthAt = elements.length();
        elements.putInt(0);
        int start = elements.length();
        try {
            switch (element.base()) {
                case BOOL -> elements.putByte(text.charAt(0) == 't' ? 1 : 0);
                // range-checked: a BIGINT[] may load into integer[] as long as each element fits
                case INT2 -> elements.putShort((short) NumberEncoders.checked(Long.parseLong(text, 0, text.length(),
                        10), Short.MIN_VALUE, Short.MAX_VALUE, origin, element));
                case INT4 -> elements.putInt((int) NumberEncoders.checked(Long.parseLong(text, 0, text.length(), 10),
                        Integer.MIN_VALUE, Integer.MAX_VALUE, origin, element));
                case INT8, TIME -> elements.putLong(Long.parseLong(text, 0, text.length(), 10));
                case FLOAT4 -> elements.putInt(Float.floatToRawIntBits(Float.parseFloat(floatText())));
                case FLOAT8 -> elements.putLong(Double.doubleToRawLongBits(Double.parseDouble(floatText())));
                case NUMERIC -> {
                    elements.setLength(lengthAt); // the writer adds its own length word
                    numeric.write(new BigDecimal(text.toString()), elements);
                    return;
                }
                case DATE -> elements.putInt(infinite() == 0 ? (int) Long.parseLong(text, 0, text.length(), 10)
                        : infinite() > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE);
                case TIMESTAMP, TIMESTAMPTZ -> elements.putLong(infinite() == 0
                        ? Long.parseLong(text, 0, text.length(), 10)
                        : infinite() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE);
                case BYTEA -> {
                    for (int k = 0; k + 1 < text.length(); k += 2) {
                        elements.putByte((Character.digit(text.charAt(k), 16) << 4)
                                | Character.digit(text.charAt(k + 1), 16));
                    }
                }
                case UUID -> {
                    if (!TextEncoders.parseUuid(text, 0, text.length(), uuid)) {
                        throw DataErrors.unreadable(origin, element, text.toString(), "not a UUID");
                    }
                    elements.putLong(uuid[0]);
                    elements.putLong(uuid[1]);
                }
                case JSONB -> {
                    elements.putByte(1);
                    elements.putUtf8(text, 0, text.length());
                }
                case VARCHAR, BPCHAR -> {
                    if (element.length() >= 0 && text.codePointCount(0, text.length()) > element.length()) {
                        throw DataErrors.tooLong(origin, element, text.toString());
                    }
                    elements.putUtf8(text, 0, text.length());
                }
                default -> elements.putUtf8(text, 0, text.length());
            }
        } catch (NumberFormatException e) {
            throw DataErrors.unreadable(origin, target, text.toString(), "element is not a number");
        }
        elements.setInt(lengthAt, elements.length() - start);
    }

    private String floatText() {
        String s = text.toString();
        return switch (s) {
            case "inf", "infinity" -> "Infinity";
            case "-inf", "-infinity" -> "-Infinity";
            case "nan", "-nan" -> "NaN";
            default -> s;
        };
    }

    private int infinite() {
        if (text.length() > 0 && (text.charAt(text.length() - 1) == 'y')) {
            return text.charAt(0) == '-' ? -1 : 1;
        }
        return 0;
    }

    /** Reads a JSON string starting at its quote into {@link #text}; returns the index after the closing quote. */
    private int readString(String json, int at) throws ConnectorException {
        if (json.charAt(at) != '"') {
            throw DataErrors.unreadable(origin, target, json, "list element is not text");
        }
        text.setLength(0);
        int i = at + 1;
        while (i < json.length()) {
            char c = json.charAt(i++);
            if (c == '"') {
                return i;
            }
            if (c != '\\') {
                text.append(c);
                continue;
            }
            char e = json.charAt(i++);
            switch (e) {
                case 'n' -> text.append('\n');
                case 't' -> text.append('\t');
                case 'r' -> text.append('\r');
                case 'b' -> text.append('\b');
                case 'f' -> text.append('\f');
                case 'u' -> {
                    text.append((char) Integer.parseInt(json, i, i + 4, 16));
                    i += 4;
                }
                default -> text.append(e); // \" \\ \/
            }
        }
        throw DataErrors.unreadable(origin, target, json, "unterminated string in list carrier");
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }
}
