package io.sluice.connector.jdbc;

import io.sluice.spi.error.ErrorCode;

import static java.util.Objects.requireNonNull;

/**
 * Every code the jdbc connector reports; docs/error-codes.md says what each means and how to fix it (a test keeps the
 * two in step).
 */
public enum JdbcCode implements ErrorCode {
    JDBC001("a jdbc source has both table and query, or neither"),
    JDBC101("no JDBC driver accepts the connection's url (none in the plugins folder)"),
    JDBC102("the database refused the connection or a statement"),
    JDBC110("distribution range or modulo on a key that is not an integer column, or no key"),
    JDBC111("distribution ntile or data-driven on a key whose type has no exact literal"),
    JDBC112("distribution data-driven: the key has more than 10,000 distinct values"),
    JDBC201("a column's type cannot be loaded into its target column's type");

    private final String summary;

    JdbcCode(String summary) {
        this.summary = requireNonNull(summary, "summary is null");
    }

    @Override
    public String summary() {
        return summary;
    }
}
