package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.PreparedStatement;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG203;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG310;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG311;
import static java.util.Objects.requireNonNull;

/**
 * A source as resolved against its server: the FROM item to read ({@code "s"."t"} or {@code (query) AS q}), the
 * table when it is one, and its columns.
 *
 * @param ownRowsOnly the table is read without its inheritance children's rows ({@code FROM ONLY})
 */
public record SourceRelation(String fromClause, Optional<ResolvedTable> table, String description, List<Column> columns,
                      boolean ownRowsOnly) {
    public SourceRelation {
        requireNonNull(fromClause, "fromClause is null");
        requireNonNull(table, "table is null");
        requireNonNull(description, "description is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }

    /**
     * The table {@code name} as read ({@code inherited}: with its inheritance children's rows); refused when it is
     * missing or the user may read none of it.
     */
    static SourceRelation ofTable(PostgresCatalog catalog, QualifiedName name, boolean inherited)
            throws SQLException, ConnectorException {
        ResolvedTable table = catalog.resolveTable(name).orElseThrow(() -> catalog.missingTable(name));
        if (!catalog.hasTablePrivilege(table.oid(), "SELECT")) {
            List<String> lacking = catalog.columnsLackingPrivilege(table.oid(), "SELECT");
            if (!lacking.isEmpty()) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PG203, "user "
                        + catalog.currentUser() + " may not read " + table.quoted() + " (no SELECT privilege)",
                        "GRANT SELECT ON " + table.quoted() + " TO " + SqlQuote.identifier(catalog.currentUser()));
            }
        }
        return of(table, catalog.columns(table.oid()), inherited);
    }

    /** The table as read ahead ({@link io.sluice.connector.postgres.catalog.TablesAhead}), found and readable. */
    static SourceRelation ofTable(ResolvedTable table, List<Column> tableColumns, boolean inherited) {
        return of(table, tableColumns, inherited);
    }

    private static SourceRelation of(ResolvedTable table, List<Column> tableColumns, boolean inherited) {
        List<Column> columns = new ArrayList<>();
        for (Column c : tableColumns) {
            // Every column reads like any other (the read is COPY (SELECT ...), which computes VIRTUAL ones too). A
            // generated one keeps its kind, so the mapping can leave it out when the target computes its own.
            Column.Generation generation = c.isGenerated() ? c.generation() : Column.Generation.NONE;
            columns.add(new Column(c.name(), c.typeName(), c.copyTypeOid(), c.nullable(), generation,
                    Optional.empty(), c.earlierRows()));
        }
        return new SourceRelation((inherited ? "" : "ONLY ") + table.quoted(), Optional.of(table), table.kindName()
                + " " + table.quoted() + (inherited ? "" : " (its own rows, not its inheritance children's)"), columns,
                !inherited);
    }

    /** The query {@code sql} as a FROM item, its columns found without running it; a query that is not valid is
     * refused with the server's reason. */
    static SourceRelation ofQuery(PostgresCatalog catalog, String sql) throws SQLException, ConnectorException {
        String from = "(" + sql + ") AS q";
        List<String> names = new ArrayList<>();
        PreparedStatement described = null;
        ResultSetMetaData metaData;
        try {
            described = catalog.connection().prepareStatement("SELECT * FROM " + from + " LIMIT 0");
            metaData = described.getMetaData(); // Parse and Describe only: the query does not run
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                names.add(metaData.getColumnLabel(i));
            }
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (state.startsWith("42") && !Set.of("42P01", "42501", "42703").contains(state)) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG310, "the source query is not valid: "
                        + PartitionKey.firstLine(e.getMessage()), "fix the query (try it in psql)");
            }
            throw e;
        }
        try (PreparedStatement closing = described) {
            return ofQuery(catalog, from, names, metaData);
        }
    }

    private static SourceRelation ofQuery(PostgresCatalog catalog, String from, List<String> names,
                                          ResultSetMetaData metaData) throws SQLException, ConnectorException {
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG311, "the source query returns "
                        + "more than one column named " + SqlQuote.identifier(name),
                        "give each output column its own name with AS");
            }
        }
        List<String> references = names.stream().map(SqlQuote::identifier).toList();
        List<Long> types = names.isEmpty() ? List.of() : catalog.expressionTypes(references, from);
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            columns.add(new Column(names.get(i), catalog.typeName(types.get(i), metaData, i + 1),
                    types.get(i).intValue(), true, Column.Generation.NONE));
        }
        return new SourceRelation(from, Optional.empty(), "the source query", columns, false);
    }
}
