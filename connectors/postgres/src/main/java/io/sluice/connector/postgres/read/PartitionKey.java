package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.SqlQuote;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG305;
import static java.util.Objects.requireNonNull;

/**
 * The {@code key} of a keyed distribution, resolved: a column (quoted) or an SQL expression (parenthesized), the
 * name of its base type (domains unwrapped, so boundary literals never trip a domain's CHECK), and a category that
 * says which methods can split it by value.
 */
public record PartitionKey(String expression, String baseTypeName, Category category, boolean notNull, boolean portable) {
    /** System columns exist on the source's heap only; a condition on them means nothing on the target. */
    private static final java.util.regex.Pattern SYSTEM_COLUMN = java.util.regex.Pattern.compile(
            "\\b(ctid|xmin|xmax|cmin|cmax|tableoid)\\b", java.util.regex.Pattern.CASE_INSENSITIVE);

    enum Category {
        INTEGER,
        DECIMAL,
        DATE,
        TIMESTAMP,
        OTHER
    }

    public PartitionKey {
        requireNonNull(expression, "expression is null");
        requireNonNull(baseTypeName, "baseTypeName is null");
        requireNonNull(category, "category is null");
    }

    static PartitionKey resolve(PlanContext context, String keyText) throws SQLException, ConnectorException {
        List<Column> columns = context.relation().columns();
        Optional<Column> column = columns.stream().filter(c -> c.name().equals(keyText)).findFirst();
        if (column.isEmpty()) {
            column = foldedColumn(keyText, columns);
        }
        String expression = column.map(c -> SqlQuote.identifier(c.name())).orElse("(" + keyText + ")");
        long type;
        try {
            type = context.catalog().expressionTypes(List.of(expression), context.relation().fromClause()).get(0);
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("42")) {
                throw e;
            }
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG305, "key '" + keyText + "' is neither a column "
                    + "of " + context.relation().description() + " nor a valid expression over it: "
                    + firstLine(e.getMessage()), "name a column (quote mixed-case names) or write an SQL expression");
        }
        long base = context.catalog().baseType(type);
        boolean notNull = column.map(c -> !c.nullable()).orElse(false);
        boolean portable = column.isPresent() || !SYSTEM_COLUMN.matcher(keyText).find();
        return new PartitionKey(expression, context.catalog().typeName(base), category(base), notNull, portable);
    }

    /** {@code CustomerId} names column {@code customerid}, as it would in SQL; {@code "CustomerId"} keeps case. */
    private static Optional<Column> foldedColumn(String keyText, List<Column> columns) {
        try {
            QualifiedName name = QualifiedName.parse(keyText);
            if (name.schema().isPresent()) {
                return Optional.empty();
            }
            return columns.stream().filter(c -> c.name().equals(name.name())).findFirst();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Category category(long baseOid) {
        return switch ((int) baseOid) {
            case 20, 21, 23 -> Category.INTEGER;
            case 700, 701, 1700 -> Category.DECIMAL;
            case 1082 -> Category.DATE;
            case 1114, 1184 -> Category.TIMESTAMP;
            default -> Category.OTHER;
        };
    }

    static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        String text = message.replaceFirst("^ERROR: ", "");
        int newline = text.indexOf('\n');
        return newline > 0 ? text.substring(0, newline) : text;
    }

    /** A value of the key's type as SQL: a quoted literal cast to the base type, never pasted raw. */
    String literal(String value) {
        return SqlQuote.literal(value) + "::" + baseTypeName;
    }

    String isNull() {
        return expression + " IS NULL";
    }
}
