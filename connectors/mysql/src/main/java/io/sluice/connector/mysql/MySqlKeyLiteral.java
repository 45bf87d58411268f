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

    Optional<KeyValues.KeyValue> read(ResultSet rs, int column) throws SQLException {
        if (form == Form.HEX && rs.getMetaData().getColumnType(column) != java.sql.Types.VARCHAR
                && rs.getMetaData().getColumnType(column) != java.sql.Types.CHAR) {
            byte[] bytes = rs.getBytes(column); // a values-query's own column, not shown as hex
            if (bytes == null) {
                return Optional.empty();
            }
            String hex = HexFormat.of().formatHex(bytes);
            return Optional.of(new KeyValues.KeyValue("X'" + hex + "'", hex));
        }
        String text = rs.getString(column);
        if (text == null) {
            return Optional.empty();
        }
        return Optional.of(switch (form) {
            // A values-query may return anything: what is not a number is quoted, never spliced in bare
            case BARE -> new KeyValues.KeyValue(text.matches("-?[0-9]+(\\.[0-9]+)?") ? text : quoted(text), text);
            case QUOTED -> new KeyValues.KeyValue(quoted(text), text);
            case HEX -> new KeyValues.KeyValue("X'" + text + "'", text);
        });
    }

    /** A string literal under an empty sql_mode: quotes doubled, backslashes and NUL escaped. */
    static String quoted(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "''").replace("\0", "\\0") + "'";
    }
}
