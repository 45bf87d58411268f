package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.RowHash;
import io.sluice.toolkit.compare.FloatText;

import java.util.List;

/**
 * The value expressions a table's rows are hashed over. Under {@link RowHash#POSTGRES} each column as it is; under
 * {@link RowHash#PORTABLE} a float as {@link FloatText} prints it, which MySQL/MariaDB and DuckDB compute alike (past
 * 2^53 PostgreSQL's own text can carry digits theirs do not; a real is compared at 6 digits), every other column as
 * PostgreSQL prints it.
 */
final class ValueText {
    private ValueText() {
    }

    static List<String> of(List<Column> columns, RowHash hash) {
        return columns.stream().map(c -> of(c, hash)).toList();
    }

    private static String of(Column column, RowHash hash) {
        String v = SqlQuote.identifier(column.name());
        if (hash != RowHash.PORTABLE) {
            return v;
        }
        String type = column.typeName();
        FloatText.Precision precision = column.copyTypeOid() == 701 || type.equals("double precision")
                || type.equals("float8") ? FloatText.Precision.DOUBLE
                : column.copyTypeOid() == 700 || type.equals("real") || type.equals("float4") ? FloatText.Precision.REAL
                : null;
        if (precision == null) {
            return v;
        }
        return "CASE WHEN " + v + " IN ('NaN', 'Infinity', '-Infinity') THEN " + v + "::text ELSE "
                + FloatText.of(FloatText.POSTGRES_STRINGS, v, "abs(" + v + ")::text", precision) + " END";
    }
}
