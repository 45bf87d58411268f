package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.ComputedColumns;

import java.sql.SQLException;
import java.util.List;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG316;
import static java.util.Objects.requireNonNull;

/** Columns a {@link PostgresSource} computes for the spec's {@code expression:} and {@code mask: hash} rules. */
final class PostgresComputedColumns implements ComputedColumns {
    private final PostgresSource source;

    PostgresComputedColumns(PostgresSource source) {
        this.source = requireNonNull(source, "source is null");
    }

    /** The expression's type as this server computes it over the table or query, without reading a row. */
    @Override
    public Column expressionColumn(String name, String expression) throws ConnectorException {
        requireNonNull(name, "name is null");
        requireNonNull(expression, "expression is null");
        SourceRelation resolved = source.relation();
        try (ControlConnection control = source.connections().control("describing an expression of "
                + source.describe())) {
            PostgresCatalog catalog = new PostgresCatalog(control.connection());
            long type;
            try {
                type = catalog.expressionTypes(List.of("(" + expression + ")"), resolved.fromClause()).getFirst();
            } catch (SQLException e) {
                String state = e.getSQLState() == null ? "" : e.getSQLState();
                if (!state.startsWith("42") || state.equals("42501")) {
                    throw e;
                }
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG316, "columns: expression " + expression
                        + " (for column " + name + ") is not valid on " + resolved.description() + ": "
                        + PartitionKey.firstLine(e.getMessage()), "write SQL over the source's columns, e.g. "
                        + "lower(email)");
            }
            String typeName;
            try (java.sql.PreparedStatement described = control.connection().prepareStatement("SELECT ("
                    + expression + ") FROM " + resolved.fromClause() + " LIMIT 0")) {
                typeName = catalog.typeName(type, described.getMetaData(), 1); // with its modifier: numeric(12,2)
            }
            return new Column(name, typeName, (int) type, true, Column.Generation.NONE);
        } catch (SQLException e) {
            throw source.connections().errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe "
                    + source.describe());
        }
    }

    /**
     * {@code H(key || H(key || value))} with SHA-256 (PostgreSQL 11+, no extension), as lower-case hex: keyed, and
     * the same text for the same value on every run and on the DuckDB source.
     */
    @Override
    public String keyedHash(String reference, String keyLiteral) {
        requireNonNull(reference, "reference is null");
        requireNonNull(keyLiteral, "keyLiteral is null");
        String key = source.maskKeys().reference(keyLiteral); // never the key itself: see MaskKeys
        String inner = "encode(sha256(convert_to(" + key + " || " + reference + ", 'UTF8')), 'hex')";
        return "encode(sha256(convert_to(" + key + " || " + inner + ", 'UTF8')), 'hex')";
    }
}
