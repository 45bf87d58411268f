package io.sluice.connector.duckdb;

import io.sluice.spi.error.ErrorCode;

import static java.util.Objects.requireNonNull;

/**
 * Every code the duckdb connector reports; docs/error-codes.md says what each means and how to fix it (a test keeps
 * the two in step).
 */
public enum DuckDbCode implements ErrorCode {
    // the spec: found by lint or when the source is opened
    DUCK001("a source sets none, or more than one, of query, files, iceberg and delta"),
    DUCK002("format is set on a query source"),
    DUCK003("the format of files cannot be told from their extension"),
    DUCK004("version or where is set on a source that is not an Iceberg or Delta table"),
    // planning
    DUCK010("distribution ctid on a DuckDB source"),
    DUCK011("distribution data-driven without a values-query, or a method without its key"),
    DUCK012("the values-query returned no values"),
    DUCK013("distribution modulo on a key that is not an integer"),
    DUCK014("distribution range on a key that is not a number, date or timestamp"),
    DUCK015("a distribution key is neither a column of the query nor an expression over its columns"),
    DUCK016("the files of one glob disagree: a column only some files have, or a type the first file's cannot hold"),
    DUCK017("the version asked for is not in the Iceberg or Delta table's history"),
    DUCK018("the iceberg: or delta: location holds no table metadata (no metadata file, no _delta_log)"),
    DUCK019("new-snapshots cannot tell what was added since the loaded version (expired, gone, or older)"),
    DUCK020("the table versions since the last run's did more than append (a delete, overwrite or rewrite)"),
    // DuckDB's own errors, translated from its message
    DUCK101("no file matches the path or glob"),
    DUCK102("the object store denied access (HTTP 403, wrong credentials)"),
    DUCK103("the bucket or object does not exist (HTTP 404)"),
    DUCK104("a DuckDB extension is missing"),
    DUCK105("the DuckDB query does not parse or bind"),
    DUCK106("DuckDB does not know a table, function or type of the query"),
    DUCK107("the storage cannot be reached (DNS, refused, timeout, reset, HTTP 5xx)"),
    DUCK108("DuckDB cannot open a file or path"),
    DUCK109("DuckDB failed with an error of no other class"),
    // the connection
    DUCK110("the DuckDB database file does not exist"),
    DUCK111("an extension file is missing from extension-directory"),
    DUCK112("the S3 secret cannot be created"),
    DUCK113("the duckdb_jdbc on the class path is not the version whose chunk-error check Sluice was tested on"),
    // reading
    DUCK120("the DuckDB reader failed unexpectedly (an unchecked error of the chunk API)"),
    DUCK121("a read was cancelled"),
    DUCK122("a file changed between the plan and its read, or during the read"),
    DUCK123("a resumed partition's table version has other columns than the version a fresh plan reads"),
    DUCK124("a data file of the table version reads other rows than the version's metadata says it holds"),
    // types and values
    DUCK201("a DuckDB column's type cannot be loaded into its target column's type"),
    DUCK202("compare cannot print a column's values as the target prints them (floating point, nested, intervals)"),
    DUCK300("DuckDB cannot read the data: a corrupt or truncated file, or a conversion error"),
    DUCK301("a text value is too long for its target column"),
    DUCK302("a value is out of range for its target column (integer width, numeric digits)"),
    DUCK303("a value cannot be converted to its target column's type"),
    DUCK304("a text value holds a NUL character, which PostgreSQL text cannot hold (nul-bytes: reject)");

    private final String summary;

    DuckDbCode(String summary) {
        this.summary = requireNonNull(summary, "summary is null");
    }

    @Override
    public String summary() {
        return summary;
    }
}
