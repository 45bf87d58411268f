package io.sluice.connector.mysql;

import io.sluice.toolkit.plan.KeyValues;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How a key value the server gave becomes a literal in a partition's predicate, for the key types MySQL compares
 * exactly and sorts as it compares: numbers bare, dates and strings quoted (the session's {@code sql_mode} is empty,
 * so a backslash escapes), binary strings as hex. The server shows each value as text first ({@code CAST(.. AS
 * CHAR)}), so no driver formatting comes between. Floating point (not exact), BIT, ENUM and SET (sorted by their
 * index, compared as strings), JSON and GEOMETRY have no literal.
 */
final class MySqlKeyLiteral {
    private enum Form { BARE, QUOTED, HEX }

    private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("-?[0-9]+(\\.[0-9]+)?");
    private static final java.util.regex.Pattern HEX = java.util.regex.Pattern.compile("([0-9A-Fa-f]{2})*");

    private final Form form;

    private MySqlKeyLiteral(Form form) {
        this.form = form;
    }

    static Optional<MySqlKeyLiteral> of(MySqlType type) {
        requireNonNull(type, "type is null");
        if (type.base().equals("enum") || type.base().equals("set")) {
            return Optional.empty();
        }
        return switch (type.kind()) {
            case BOOLEAN, INT2, INT4, INT8, UINT8, DECIMAL, YEAR -> Optional.of(new MySqlKeyLiteral(Form.BARE));
            case TEXT, DATE, DATETIME, TIMESTAMP, TIME -> Optional.of(new MySqlKeyLiteral(Form.QUOTED));
            case BYTES -> Optional.of(new MySqlKeyLiteral(Form.HEX));
            case FLOAT4, FLOAT8, BIT, JSON, GEOMETRY -> Optional.empty();
        };
    }

    /** The select expression that shows {@code expression}'s value as text. */
    String shown(String expression) {
        return form == Form.HEX ? "HEX(" + expression + ")" : "CAST(" + expression + " AS CHAR)";
    }

    /** A value the server showed as text ({@link #shown}): a number, a string, or hex digits. */
    Optional<KeyValues.KeyValue> read(ResultSet rs, int column) throws SQLException {
        String text = rs.getString(column);
        if (text == null) {
            return Optional.empty();
        }
        return Optional.of(literal(text));
    }

    /** A value as a user's values-query returned it, in whatever type: binary keys by their bytes. */
    Optional<KeyValues.KeyValue> listed(ResultSet rs, int column) throws SQLException {
        if (form != Form.HEX) {
            return read(rs, column);
        }
        byte[] bytes = rs.getBytes(column);
        return bytes == null ? Optional.empty() : Optional.of(literal(HexFormat.of().formatHex(bytes)));
    }

    private KeyValues.KeyValue literal(String text) {
        return switch (form) {
            // A values-query may return anything: what is not a number is quoted, never spliced in bare
            case BARE -> new KeyValues.KeyValue(NUMBER.matcher(text).matches() ? text : quoted(text), text);
            case QUOTED -> new KeyValues.KeyValue(quoted(text), text);
            case HEX -> {
                if (!HEX.matcher(text).matches()) {
                    throw new IllegalStateException("not hex digits: " + text); // HEX() and formatHex give only those
                }
                yield new KeyValues.KeyValue("X'" + text + "'", text);
            }
        };
    }

    /** A string literal under an empty sql_mode: quotes doubled, backslashes and NUL escaped. */
    static String quoted(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "''").replace("\0", "\\0") + "'";
    }
}
