package io.sluice.bench;

/** Scenario slugs the report and the acceptance checks refer to. */
final class SluiceSlug {
    static final String CTID = "sluice-ctid";
    static final String CTID_JOINED = "sluice-ctid-joined";
    static final String RANGE = "sluice-range";
    static final String PARQUET = "sluice-data-driven";
    static final String INGEST_LIMIT = "ingest-limit";
    static final String INGEST_LIMIT_ONE_TRANSACTION = "ingest-limit-one-txn";

    private SluiceSlug() {
    }
}
