package io.sluice.connector.postgres.catalog;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.List;

/**
 * PG232: source columns a path that does not read a table's rows again (an incremental run, the change apply) would
 * add to it, whose rows from before hold values no default of the source tells ({@link Column#earlierRows()} {@code PER_ROW}):
 * in the target they would stay NULL.
 */
public final class UnknownEarlierRows {
    private UnknownEarlierRows() {
    }

    /** {@code path} says why the rows are not read again, {@code fix} the path's own way out. */
    public static ConnectorException refusal(String quoted, List<Column> columns, String path, String fix) {
        return new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG232, "column(s) " + String.join(", ",
                columns.stream().map(c -> SqlQuote.identifier(c.name())).toList()) + " were added at the source "
                + "with a default PostgreSQL keeps no one value of for the rows from before (computed per row, or "
                + "written into them by a table rewrite since, or set later): " + path + ", so the rows already in "
                + quoted + " would hold NULL there where the source has values; nothing was written", fix + "; or "
                + "add the column(s) to " + quoted + " yourself, filled as the source's rows hold them (" + String.join(
                "; ", columns.stream().map(c -> "ALTER TABLE " + quoted + " ADD COLUMN " + SqlQuote.identifier(
                c.name()) + " " + c.typeName()).toList()) + "), then run again");
    }
}
