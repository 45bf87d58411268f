package io.sluice.connector.mysql;

import io.sluice.spi.error.ErrorCode;

import static java.util.Objects.requireNonNull;

/**
 * Every code the mysql connector reports; docs/error-codes.md says what each means and how to fix it (a test keeps
 * the two in step).
 */
public enum MySqlCode implements ErrorCode {
    // the spec
    MY001("a mysql source has both table and query, or neither"),
    MY002("a mysql connection has neither url nor host"),
    // the server
    MY101("the server cannot be reached or refused the login"),
    MY102("the table or a column does not exist, or the query does not parse"),
    MY103("the user lacks a privilege the read needs (SELECT, or LOCK TABLES / RELOAD for one snapshot)"),
    MY104("the server failed with an error of no other class"),
    MY105("a read was cancelled"),
    // planning
    MY110("distribution range or modulo on a key that is not an integer column of the source, or no key"),
    MY111("distribution ntile or data-driven on a key whose type does not compare exactly"),
    MY112("distribution data-driven: the key has more than 10,000 distinct values"),
    // types and values
    MY201("a column's type cannot be loaded into its target column's type"),
    MY202("a column's MySQL type has no PostgreSQL counterpart Sluice carries"),
    MY203("compare cannot print a column's values as the target prints them (floating point, JSON)"),
    MY204("a compare's listing found every connection of the snapshot in use"),
    MY301("a zero or invalid date (0000-00-00, a zero month or day), which PostgreSQL cannot hold"),
    MY302("a value is out of range for its target column"),
    MY303("a text value holds a NUL character, which PostgreSQL text cannot hold");

    private final String summary;

    MySqlCode(String summary) {
        this.summary = requireNonNull(summary, "summary is null");
    }

    @Override
    public String summary() {
        return summary;
    }
}
