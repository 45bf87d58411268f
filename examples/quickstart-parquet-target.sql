-- Target of quickstart-parquet.yaml: TPC-H orders, created when Sluice creates the embedded database.
CREATE TABLE public.orders (
    o_orderkey      bigint,
    o_custkey       bigint,
    o_orderstatus   char(1),
    o_totalprice    numeric(15,2),
    o_orderdate     date,
    o_orderpriority varchar(15),
    o_clerk         varchar(15),
    o_shippriority  integer,
    o_comment       varchar(79)
);
