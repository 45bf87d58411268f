package io.sluice.bench;

import static java.util.Objects.requireNonNull;

/** A target table in schema {@value TpchData#SCHEMA} of the target database, and what it is loaded with. */
public enum BenchTarget {
    LINEITEM_LOGGED("lineitem", "lineitem", false),
    LINEITEM_UNLOGGED("lineitem_unlogged", "lineitem", true),
    ORDERS("orders", "orders", false);

    private final String table;
    private final String dataset;
    private final boolean unlogged;

    BenchTarget(String table, String dataset, boolean unlogged) {
        this.table = requireNonNull(table, "table is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.unlogged = unlogged;
    }

    public String table() {
        return table;
    }

    public String qualifiedTable() {
        return TpchData.SCHEMA + "." + table;
    }

    /** The source table whose rows this target receives. */
    public String dataset() {
        return dataset;
    }

    public boolean unlogged() {
        return unlogged;
    }

    public TableData data(TpchData data) {
        return dataset.equals("lineitem") ? data.lineitem() : data.orders();
    }
}
