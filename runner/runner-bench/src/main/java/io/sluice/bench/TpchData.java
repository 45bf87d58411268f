package io.sluice.bench;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * The generated data set: lineitem and orders in the source database (schema {@value #SCHEMA}), orders also as
 * {@value #PARQUET_FILES} Parquet files in a local folder, and {@link ManyTables}' 40 tables cut from lineitem.
 */
public record TpchData(double scale, TableData lineitem, TableData orders, Path parquetDirectory,
                       TableData manyTables) {
    public static final String SCHEMA = "sluice_bench";
    public static final int PARQUET_FILES = 16;

    public TpchData {
        requireNonNull(lineitem, "lineitem is null");
        requireNonNull(orders, "orders is null");
        requireNonNull(parquetDirectory, "parquetDirectory is null");
        requireNonNull(manyTables, "manyTables is null");
    }

    /** The glob that matches the local Parquet files. */
    public String localParquetGlob() {
        return parquetDirectory.toAbsolutePath() + "/*.parquet";
    }

    public static String parquetFileName(int index) {
        return String.format("orders-%02d.parquet", index);
    }
}
