package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;

/** The options a {@code type: duckdb} connection and its stream sources accept. */
final class DuckDbOptions {
    static final Option<String> DATABASE = Option.string("database").withDefault(":memory:")
            .describedAs("DuckDB database: :memory: or a file path.");
    static final Option<Long> THREADS = Option.integer("threads").withDefault(1L)
            .describedAs("DuckDB threads of the connection's instance. 1: each partition reader runs its query on "
                    + "its own thread, so degree sets the parallelism; more help source queries that join or "
                    + "aggregate.");
    static final Option<String> MEMORY_LIMIT = Option.string("memory-limit")
            .describedAs("DuckDB memory_limit, e.g. 2GB.");
    static final Option<Boolean> EXTERNAL_FILE_CACHE = Option.bool("external-file-cache").withDefault(false)
            .describedAs("DuckDB's in-memory cache of remote file data (enable_external_file_cache). Off by "
                    + "default: a load reads each file once, and the cache grows up to memory-limit.");
    static final Option<String> EXTENSION_DIRECTORY = Option.string("extension-directory")
            .describedAs("Folder holding extensions as <dir>/v1.5.5/linux_amd64/<name>.duckdb_extension; "
                    + "when set, Sluice never downloads extensions.");

    static final Option<String> S3_ENDPOINT = Option.string("endpoint").describedAs("host:port of an S3-compatible server.");
    static final Option<String> S3_REGION = Option.string("region").describedAs("Region, e.g. us-east-1.");
    static final Option<String> S3_URL_STYLE = Option.string("url-style").oneOf("path", "vhost")
            .describedAs("path for most self-hosted servers, vhost for AWS.");
    static final Option<Boolean> S3_USE_SSL = Option.bool("use-ssl").withDefault(true).describedAs("HTTPS or not.");
    static final Option<String> S3_KEY_ID = Option.string("key-id").secret()
            .describedAs("Access key id; absent: the provider's credential chain.");
    static final Option<String> S3_SECRET = Option.string("secret").secret().describedAs("Secret access key.");
    static final Option<String> S3_SESSION_TOKEN = Option.string("session-token").secret()
            .describedAs("Session token for temporary credentials.");
    static final OptionSchema S3_SCHEMA = OptionSchema.of(S3_ENDPOINT, S3_REGION, S3_URL_STYLE, S3_USE_SSL,
            S3_KEY_ID, S3_SECRET, S3_SESSION_TOKEN);
    static final Option<Options> S3 = Option.object("s3", S3_SCHEMA)
            .describedAs("S3 settings, passed to DuckDB as a secret.");

    static final Option<String> QUERY = Option.string("query").naming().describedAs("Any DuckDB SQL.");
    static final Option<String> FILES = Option.string("files").naming()
            .describedAs("A glob, local or s3://; one partition per file.");
    static final Option<String> FORMAT = Option.string("format").oneOf("parquet", "csv", "json")
            .describedAs("Format of files: (default from the extension).");
    static final Option<String> ICEBERG = Option.string("iceberg").naming()
            .describedAs("An Apache Iceberg table, local or s3://: its folder (the newest metadata file, or the one "
                    + "metadata/version-hint.text names) or one metadata/<name>.metadata.json; one partition per data "
                    + "file, read at the snapshot the plan pins.");
    static final Option<String> DELTA = Option.string("delta").naming()
            .describedAs("A Delta Lake table's folder (the one holding _delta_log), local or s3://; one partition per "
                    + "data file, read at the version the plan pins.");
    static final Option<String> WHERE = Option.string("where")
            .describedAs("With iceberg: or delta:, a DuckDB SQL condition over the table's columns: only the rows "
                    + "it holds are loaded, counted and compared.");
    static final Option<Long> VERSION = Option.integer("version")
            .describedAs("With iceberg: or delta:, the table version to load: an Iceberg snapshot id or a Delta "
                    + "version number (default: the newest when the run plans).");

    static final OptionSchema CONNECTION = OptionSchema.of(DATABASE, THREADS, MEMORY_LIMIT,
            EXTERNAL_FILE_CACHE, EXTENSION_DIRECTORY, S3);
    static final OptionSchema SOURCE = OptionSchema.of(QUERY, FILES, FORMAT, ICEBERG, DELTA, VERSION, WHERE);

    private DuckDbOptions() {
    }
}
