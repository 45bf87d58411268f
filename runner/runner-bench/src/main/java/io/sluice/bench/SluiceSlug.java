package io.sluice.bench;

/** Scenario slugs the report and the acceptance checks refer to. */
final class SluiceSlug {
    static final String CTID = "sluice-ctid";
    static final String CTID_JOINED = "sluice-ctid-joined";
    static final String RANGE = "sluice-range";
    static final String REPLACE = "sluice-ctid-replace";
    static final String APPEND_KEYED = "sluice-ctid-append-keyed";
    static final String MERGE_EMPTY = "sluice-ctid-merge-empty";
    static final String MERGE_FULL = "sluice-ctid-merge-full";
    static final String PSQL_MERGE = "psql-staging-merge";
    static final String INDEXES_KEEP = "sluice-ctid-indexes-keep";
    static final String INDEXES_REBUILD = "sluice-ctid-indexes-rebuild";
    static final String PATTERN = "sluice-pattern-max-parallel-streams";
    static final String PGCOPYDB = "pgcopydb-table-jobs";
    static final String PGCOPYDB_INDEXES = "pgcopydb-copy-data-indexes";
    static final String DUCKDB_PROCESS = "duckdb-process-postgres_scanner-threads";
    static final String DUCKDB_CSV_PIPE = "duckdb-csv-psql-pipe";
    static final String PARQUET = "sluice-data-driven";
    static final String INGEST_LIMIT = "ingest-limit";
    static final String INGEST_LIMIT_ONE_TRANSACTION = "ingest-limit-one-txn";

    private SluiceSlug() {
    }
}
