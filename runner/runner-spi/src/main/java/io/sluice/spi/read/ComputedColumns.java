package io.sluice.spi.read;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;

/**
 * A source's ability to compute columns in its own dialect ({@link Source#computedColumns()}): the spec's
 * {@code columns:} rules with {@code expression:} or {@code mask:}.
 */
public interface ComputedColumns {
    /**
     * The column the source would read for {@code expression} (SQL in the source's dialect over its columns, e.g.
     * {@code lower(email)}), named {@code name}: its type as the source would compute it. The expression is judged
     * without reading a row; one that does not parse is refused with the server's reason.
     */
    Column expressionColumn(String name, String expression) throws ConnectorException;

    /**
     * SQL of the source's dialect that hashes {@code reference} (an expression of text type) keyed by
     * {@code keyLiteral} (a quoted SQL string): the same input and key give the same lower-case hex text on every
     * run, and the key cannot be read back from it.
     */
    String keyedHash(String reference, String keyLiteral) throws ConnectorException;
}
