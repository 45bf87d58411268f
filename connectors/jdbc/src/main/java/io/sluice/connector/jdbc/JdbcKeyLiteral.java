package io.sluice.connector.jdbc;

import io.sluice.toolkit.plan.KeyValues;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How a key value read back through the driver becomes a literal any JDBC database takes: numbers bare, strings in
 * standard quotes, dates and timestamps as JDBC escapes ({@code {d '...'}}, {@code {ts '...'}}, which the driver
 * turns into its dialect). Floating point, booleans, binary and zoned types have none: ntile and data-driven refuse
 * them.
 */
enum JdbcKeyLiteral {
    NUMBER, STRING, DATE, TIMESTAMP;

    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSSSSS");

    static Optional<JdbcKeyLiteral> of(JdbcType type) {
        requireNonNull(type, "type is null");
        return switch (type.kind()) {
            case INT2, INT4, INT8, NUMERIC -> Optional.of(NUMBER);
            case DATE -> Optional.of(DATE);
            case TIMESTAMP -> Optional.of(TIMESTAMP);
            case TEXT -> switch (type.sqlType()) {
                case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR ->
                        Optional.of(STRING);
                default -> Optional.empty();
            };
            default -> Optional.empty();
        };
    }

    Optional<KeyValues.KeyValue> read(ResultSet rs, int column) throws SQLException {
        return switch (this) {
            case NUMBER -> {
                BigDecimal value = rs.getBigDecimal(column);
                yield value == null ? Optional.empty()
                        : Optional.of(new KeyValues.KeyValue(value.toPlainString(), value.toPlainString()));
            }
            case STRING -> {
                String value = rs.getString(column);
                yield value == null ? Optional.empty()
                        : Optional.of(new KeyValues.KeyValue("'" + value.replace("'", "''") + "'", value));
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
}
