package io.sluice.bench;

import static java.util.Objects.requireNonNull;

/** A group of scenarios that move the same data to the same kind of target, compared with each other. */
public enum Section {
    LINEITEM_LOGGED("lineitem-logged", "lineitem: PostgreSQL → PostgreSQL, LOGGED target"),
    LINEITEM_UNLOGGED("lineitem-unlogged", "lineitem: PostgreSQL → PostgreSQL, UNLOGGED target"),
    ORDERS_LOCAL("orders-local", "orders: 16 local Parquet files → PostgreSQL"),
    ORDERS_S3("orders-s3", "orders: 16 Parquet files on local S3 → PostgreSQL"),
    LINEITEM_LOAD_MODES("lineitem-load-modes", "lineitem: load modes (replace, merge, indexes: rebuild) beside truncate "
            + "and append, LOGGED targets"),
    MANY_TABLES("many-tables", "40 tables of mixed sizes cut from lineitem: Sluice's table pattern with "
            + "max-parallel-streams N against pgcopydb copy table-data --table-jobs N, LOGGED targets"),
    LINEITEM_JOINED("lineitem-joined", "lineitem: N joined processes of degree 1 (--join) against one process of "
            + "degree N, LOGGED target");

    private final String id;
    private final String title;

    Section(String id, String title) {
        this.id = requireNonNull(id, "id is null");
        this.title = requireNonNull(title, "title is null");
    }

    public String id() {
        return id;
    }

    public String title() {
        return title;
    }
}
