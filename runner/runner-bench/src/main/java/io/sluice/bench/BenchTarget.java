package io.sluice.bench;

import static java.util.Objects.requireNonNull;

/** A target table in schema {@value TpchData#SCHEMA} of the target database, and what it is loaded with. */
public enum BenchTarget {
    LINEITEM_LOGGED("lineitem", "lineitem", false, false),
    LINEITEM_UNLOGGED("lineitem_unlogged", "lineitem", true, false),
    ORDERS("orders", "orders", false, false),
    /** lineitem with its primary key (l_orderkey, l_linenumber), empty before each run: a merge's first load. */
    LINEITEM_KEYED("lineitem_keyed", "lineitem", false, false),
    /** The same table holding every row before each run: a merge in which every key conflicts. */
    LINEITEM_KEYED_FULL("lineitem_keyed", "lineitem", false, true),
    /** lineitem with three secondary indexes: what indexes: rebuild is for. */
    LINEITEM_INDEXED("lineitem_indexed", "lineitem", false, false),
    /** {@link ManyTables}' 40 tables, emptied and counted together. */
    MANY_TABLES("*", "many-tables", false, false);

    private final String table;
    private final String dataset;
    private final boolean unlogged;
    private final boolean prefilled;

    BenchTarget(String table, String dataset, boolean unlogged, boolean prefilled) {
        this.table = requireNonNull(table, "table is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.unlogged = unlogged;
        this.prefilled = prefilled;
    }

    /** Whether the harness fills the table with the dataset's rows before each run (untimed), instead of emptying it. */
    public boolean prefilled() {
        return prefilled;
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
        return switch (dataset) {
            case "lineitem" -> data.lineitem();
            case "many-tables" -> data.manyTables();
            default -> data.orders();
        };
    }

    /** The target tables a run fills: this one, or the 40 of {@link ManyTables}. */
    public java.util.List<String> qualifiedTables() {
        return this == MANY_TABLES ? ManyTables.qualifiedNames() : java.util.List.of(qualifiedTable());
    }
}
