package io.sluice.bench;

import static java.util.Objects.requireNonNull;

/** The orders Parquet files as uploaded to the harness's local S3 server, and how to reach them. */
record S3Orders(SluiceSpec.S3 settings, String glob, String duckDbSecretSql) {
    S3Orders {
        requireNonNull(settings, "settings is null");
        requireNonNull(glob, "glob is null");
        requireNonNull(duckDbSecretSql, "duckDbSecretSql is null");
    }
}
