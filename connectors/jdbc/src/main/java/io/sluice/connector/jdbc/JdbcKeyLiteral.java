package io.sluice.connector.jdbc;

import io.sluice.toolkit.plan.KeyValues;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How a key value read back through the driver becomes a literal any JDBC database takes: numbers bare, strings in
 * standard quotes ({@code N'...'} for national character types, so SQL Server keeps what its code page lacks; a
 * backslash doubled where the database reads it as an escape, as MySQL and MariaDB do by default), dates and
 * timestamps as JDBC escapes ({@code {d '...'}}, {@code {ts '...'}}, which the driver turns into its dialect).
 * Floating point, booleans, binary and zoned types have none: ntile and data-driven refuse them.
 */
record JdbcKeyLiteral(Form form, boolean national, boolean backslashEscapes) {
    enum Form { NUMBER, STRING, DATE, TIMESTAMP }

    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSSSSS");

    JdbcKeyLiteral {
        requireNonNull(form, "form is null");
    }

    /** The literal form for a key of {@code type}; empty when it has none. */
    static Optional<JdbcKeyLiteral> of(JdbcType type) {
        requireNonNull(type, "type is null");
        Form form = switch (type.kind()) {
            case INT2, INT4, INT8, NUMERIC -> Form.NUMBER;
            case DATE -> Form.DATE;
            case TIMESTAMP -> Form.TIMESTAMP;
            case TEXT -> switch (type.sqlType()) {
                case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR ->
                        Form.STRING;
                default -> null;
            };
            default -> null;
        };
        boolean national = type.sqlType() == Types.NCHAR || type.sqlType() == Types.NVARCHAR
                || type.sqlType() == Types.LONGNVARCHAR;
        return Optional.ofNullable(form).map(f -> new JdbcKeyLiteral(f, national, false));
    }

    /** This form for the database {@code productName} names (its driver's metadata). */
    JdbcKeyLiteral on(String productName) {
        String product = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        return new JdbcKeyLiteral(form, national, product.contains("mysql") || product.contains("mariadb"));
    }

    Optional<KeyValues.KeyValue> read(ResultSet rs, int column) throws SQLException {
        return switch (form) {
            case NUMBER -> {
                BigDecimal value = rs.getBigDecimal(column);
                yield value == null ? Optional.empty()
                        : Optional.of(new KeyValues.KeyValue(value.toPlainString(), value.toPlainString()));
            }
            case STRING -> {
                String value = rs.getString(column);
                yield value == null ? Optional.empty() : Optional.of(new KeyValues.KeyValue(quoted(value), value));
            }
            case DATE -> {
                LocalDate value = rs.getObject(column, LocalDate.class);
                yield value == null ? Optional.empty()
                        : Optional.of(new KeyValues.KeyValue("{d '" + value + "'}", value.toString()));
            }
            case TIMESTAMP -> {
                LocalDateTime value = rs.getObject(column, LocalDateTime.class);
                yield value == null ? Optional.empty()
                        : Optional.of(new KeyValues.KeyValue("{ts '" + TS.format(value) + "'}", value.toString()));
            }
        };
    }

    String quoted(String value) {
        String escaped = backslashEscapes ? value.replace("\\", "\\\\") : value;
        return (national ? "N'" : "'") + escaped.replace("'", "''") + "'";
    }
}
