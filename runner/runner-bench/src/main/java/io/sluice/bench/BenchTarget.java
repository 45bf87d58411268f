package io.sluice.bench;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** A target table in schema {@value TpchData#SCHEMA} of the target database, and what it is loaded with. */
public enum BenchTarget {
    LINEITEM_LOGGED("lineitem", "lineitem", false, Preparation.EMPTY),
    LINEITEM_UNLOGGED("lineitem_unlogged", "lineitem", true, Preparation.EMPTY),
    ORDERS("orders", "orders", false, Preparation.EMPTY),
    /** The four shapes FastTransfer's posts report: LOGGED or UNLOGGED, with or without a primary key. */
    ORDERS_UNLOGGED("orders_unlogged", "orders", true, Preparation.EMPTY),
    ORDERS_KEYED("orders_keyed", "orders", false, Preparation.EMPTY),
    ORDERS_KEYED_UNLOGGED("orders_keyed_unlogged", "orders", true, Preparation.EMPTY),
    /** lineitem with its primary key (l_orderkey, l_linenumber), empty before each run: a merge's first load. */
    LINEITEM_KEYED("lineitem_keyed", "lineitem", false, Preparation.EMPTY),
    /** The same table holding every row before each run: a merge in which every key conflicts. */
    LINEITEM_KEYED_FULL("lineitem_keyed", "lineitem", false, Preparation.PREFILLED),
    /** lineitem with {@link #SECONDARY_INDEXES}: what indexes: rebuild is for. */
    LINEITEM_INDEXED("lineitem_indexed", "lineitem", false, Preparation.EMPTY_WITH_INDEXES),
    /** The same table with its indexes dropped before each run: a tool that builds them itself (pgcopydb). */
    LINEITEM_INDEXED_BARE("lineitem_indexed", "lineitem", false, Preparation.EMPTY_WITHOUT_INDEXES),
    /** {@link ManyTables}' 40 tables, emptied and counted together. */
    MANY_TABLES("*", "many-tables", false, Preparation.EMPTY);

    /** The three secondary indexes of {@link #LINEITEM_INDEXED} (and of its source copy for pgcopydb). */
    static final List<SecondaryIndex> SECONDARY_INDEXES = List.of(
            new SecondaryIndex("lineitem_indexed_shipdate", "l_shipdate"),
            new SecondaryIndex("lineitem_indexed_part", "l_partkey, l_suppkey"),
            new SecondaryIndex("lineitem_indexed_order", "l_orderkey"));

    record SecondaryIndex(String name, String columns) {
        SecondaryIndex {
            requireNonNull(name, "name is null");
            requireNonNull(columns, "columns is null");
        }
    }

    /** What the harness does to the table before each run, untimed; every run starts from an empty table first. */
    enum Preparation {
        EMPTY,
        /** Filled with the dataset's rows. */
        PREFILLED,
        /** With {@link #SECONDARY_INDEXES} in place (recreated if a previous run left them missing). */
        EMPTY_WITH_INDEXES,
        /** With {@link #SECONDARY_INDEXES} dropped. */
        EMPTY_WITHOUT_INDEXES
    }

    private final String table;
    private final String dataset;
    private final boolean unlogged;
    private final Preparation preparation;

    BenchTarget(String table, String dataset, boolean unlogged, Preparation preparation) {
        this.table = requireNonNull(table, "table is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.unlogged = unlogged;
        this.preparation = requireNonNull(preparation, "preparation is null");
    }

    /** Whether the table has a primary key (the keyed orders shapes: o_orderkey). */
    public boolean keyed() {
        return this == ORDERS_KEYED || this == ORDERS_KEYED_UNLOGGED || this == LINEITEM_KEYED
                || this == LINEITEM_KEYED_FULL;
    }

    public Preparation preparation() {
        return preparation;
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
    public List<String> qualifiedTables() {
        return this == MANY_TABLES ? ManyTables.qualifiedNames() : List.of(qualifiedTable());
    }

    /** {@code CREATE INDEX} for each of {@link #SECONDARY_INDEXES} on {@code qualifiedTable}. */
    static List<String> createIndexSql(String qualifiedTable, boolean ifNotExists) {
        return SECONDARY_INDEXES.stream().map(i -> "CREATE INDEX " + (ifNotExists ? "IF NOT EXISTS " : "") + i.name()
                + " ON " + qualifiedTable + " (" + i.columns() + ")").toList();
    }
}
